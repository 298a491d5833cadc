// What the store takes and gives for API v1's resources and direct stays (CONTRACT §14).
import type { AvailabilityInput } from "../engine/availability.js";
import type { ReservationStatus } from "../engine/model.js";
import type { DirectStayUpdate, NightsConflict, Reservation } from "../resource-types.js";
import type { WebhookEvent } from "../types.js";

/** A reservation as the API shows it, with the owner it belongs to (404 across owners). */
export interface OwnedReservation {
  ownerId: string;
  reservation: Reservation;
}

/** One page of a property's reservations, by (arrival, id). */
export interface ReservationPageQuery {
  propertyId: string;
  /** Keep reservations with a night on or after this date. */
  from?: string;
  /** Keep reservations with a night before this date. */
  to?: string;
  /** `all` for both. */
  status: ReservationStatus | "all";
  /** Rows to return at most. */
  limit: number;
  /** Start after this row (the last of the previous page). */
  after?: { arrival: string; id: string };
}

/** Most `Idempotency-Key` answers kept per owner; saving one more forgets the oldest (CONTRACT §14). */
export const MAX_IDEMPOTENCY_KEYS = 1000;

/** An answer kept under an `Idempotency-Key` for 24 h. */
export interface IdempotencyRecord {
  requestHash: string;
  status: number;
  body: unknown;
}

/** The idempotency key of a write: looked up and stored in the write's transaction. */
export interface IdempotencyClaim {
  /** `METHOD path` of the request. */
  route: string;
  key: string;
  /** SHA-256 of the request's body as read (its JSON, keys sorted). */
  requestHash: string;
  /** Records older than this are forgotten. */
  since: Date;
  /** The answer to keep for an outcome; undefined keeps none. */
  answer(outcome: DirectStayOutcome): { status: number; body: unknown } | undefined;
}

/** The new stay of a create. */
export interface DirectStayFields {
  kind: "booking" | "block";
  arrival: string;
  departure: string;
  summary: string;
  note: string | null;
}

/** One change to a direct stay. */
export type DirectStayAction =
  | { type: "create"; propertyId: string; stay: DirectStayFields }
  /** `arrival`/`departure` given together or not at all (the caller merges them with the stored ones). */
  | { type: "update"; reservationId: string; changes: DirectStayUpdate }
  | { type: "cancel"; reservationId: string };

/** A change that was made, for its webhook events. */
export interface DirectStayChange {
  type: "created" | "updated" | "cancelled";
  reservation: Reservation;
  /** The stay before an update. */
  previous?: Reservation;
  propertyName: string;
}

/** A direct-stay write: check and write in one transaction that serialises the property's direct stays. */
export interface DirectStayWrite {
  ownerId: string;
  action: DirectStayAction;
  at: Date;
  idempotency?: IdempotencyClaim;
  /** The webhook events of a change, written to the outbox in the same transaction. */
  events(change: DirectStayChange): WebhookEvent[];
}

/** What a direct-stay write gave. */
export type DirectStayOutcome =
  | { type: "done"; change: DirectStayChange | null; reservation: Reservation }
  | { type: "conflict"; conflicts: NightsConflict[] }
  | { type: "not_found" }
  | { type: "not_direct"; reservation: Reservation }
  | { type: "cancelled"; reservation: Reservation }
  | { type: "replay"; record: IdempotencyRecord }
  | { type: "key_reused" };

/** The store methods of API v1's resources. */
export interface ResourceQueries {
  /** One reservation with its owner; undefined when unknown. */
  getReservation(id: string): Promise<OwnedReservation | undefined>;
  /** A page of a property's reservations ordered by arrival, then id. */
  reservationsPage(query: ReservationPageQuery): Promise<Reservation[]>;
  /** The answer kept under an owner's key on a route, if made since `since`. */
  findIdempotencyRecord(input: { ownerId: string; route: string; key: string; since: Date }): Promise<IdempotencyRecord | undefined>;
  /**
   * Checks and writes one direct stay in one transaction: SQLite's immediate write lock, PostgreSQL's lock of
   * the property row, so of two overlapping stays written at once exactly one is stored.
   */
  writeDirectStay(write: DirectStayWrite): Promise<DirectStayOutcome>;
}
