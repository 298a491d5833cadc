// What `calsync reservation …` and `calsync availability` need from wherever the record lives: a
// calsync server through the SDK (./remote.ts) or this machine's database (./local.ts). Commands see
// only this interface, so each door is one adapter file.
import type {
  Availability,
  DirectStayCreate,
  DirectStayResult,
  DirectStayUpdate,
  NightsConflict,
  Reservation,
  ReservationSource,
  Turnover,
} from "../../resource-types.js";
import type { Channel } from "../../channel-types.js";
import { CliFailure, EXIT } from "../context.js";

/** The nights asked about: [from, to), either end left to the backend's default. */
export interface NightRange {
  from?: string | undefined;
  to?: string | undefined;
}

/** What messages call a property and its calendars instead of their ids. */
export interface PropertyNames {
  name: string;
  calendars: ReadonlyArray<{ id: string; source: ReservationSource }>;
}

/**
 * Direct stays and availability of one owner's properties. Every method throws `CliFailure` (or
 * `UsageError`) with the exit code of its failure; taken nights are `nightsTaken(conflicts)`.
 */
export interface StaysBackend {
  /** Stores a direct stay after checking its nights (after refreshing the channels unless `refresh: false`). */
  create(propertyId: string, stay: DirectStayCreate): Promise<DirectStayResult>;
  /** Moves or renames a direct stay; new nights are checked as `create` does. */
  update(reservationId: string, changes: DirectStayUpdate): Promise<DirectStayResult>;
  /** Cancels a direct stay and returns it as it is now. */
  cancel(reservationId: string): Promise<Reservation>;
  /** Which nights of [from, to) are free. */
  availability(propertyId: string, range: NightRange): Promise<Availability>;
  /** The property's name and its calendars' sources for messages; undefined when they cannot be read (never throws). */
  names(propertyId: string): Promise<PropertyNames | undefined>;
  /** Every turnover dated in [from, to) of one property, or of all the owner's (every page). */
  turnovers(query: NightRange & { propertyId?: string | undefined }): Promise<Turnover[]>;
  /** What each channel has seen (CONTRACT §17) of one property, or of every property of the owner. */
  channels(propertyId?: string): Promise<PropertyChannels[]>;
}

/** One property's channel links, as `calsync channels` prints them. */
export interface PropertyChannels {
  propertyId: string;
  propertyName: string;
  timeZone: string | null;
  channels: Channel[];
}

/** The refusal both backends give when a night asked for is taken: exit 6, the stays holding them on stderr. */
export function nightsTaken(conflicts: readonly NightsConflict[]): CliFailure {
  const lines = conflicts.map((c) => `  ${c.source.padEnd(11)} ${c.arrival} → ${c.departure}  ${c.reservationId}`);
  const listed = lines.length > 0 ? `:\n${lines.join("\n")}` : "";
  return new CliFailure(`the nights are taken by ${conflicts.length === 1 ? "this stay" : "these stays"}${listed}`, EXIT.taken);
}

/**
 * The refusal both backends give when the stay itself cannot take the change (updating a cancelled one): the
 * command was typed right, so exit 1 (CONTRACT §6 "anything else") and no usage hint.
 */
export function stayRefused(message: string, field: string | undefined): CliFailure {
  // The service says "create a new one instead"; the command that does is named.
  const hint = field === "status" ? " (calsync reservation add)" : "";
  return new CliFailure(`${message}${hint}`, EXIT.failure);
}
