// Which nights of a property are free (CONTRACT §14 "Availability", §15). Pure: the API, the
// direct-stay check, the public availability feed and the CLI all read nights through this one rule.
import type { ReservationKind, ReservationStatus } from "./model.js";
import { addDays } from "./nights.js";

/** A reservation as the availability rule needs it: any calendar of the property, any kind. */
export interface AvailabilityInput {
  id: string;
  status: ReservationStatus;
  /** First night, `YYYY-MM-DD`. */
  arrival: string;
  /** The morning after the last night (exclusive), `YYYY-MM-DD`. */
  departure: string;
  /** The reservation this one is a channel's echo of (CONTRACT §8), else null. */
  echoOf: string | null;
  /** Bookings keep buffer nights around them; blocks (echoes included) do not (CONTRACT §18). */
  kind: ReservationKind;
}

/** One night of the range. */
export interface AvailabilityNight {
  /** The night's date, `YYYY-MM-DD`. */
  date: string;
  available: boolean;
  /** The active reservations holding this night, in the order given; empty when available. */
  reservationIds: string[];
}

/** Options of `availabilityNights`. */
export interface AvailabilityOptions {
  /** First night asked about, `YYYY-MM-DD`. */
  from: string;
  /** The day after the last night asked about (exclusive), `YYYY-MM-DD`. */
  to: string;
  /**
   * Status of echo targets that are not among `reservations` (a stay moved out of the range).
   * A target found neither here nor there counts as active: a night is never called free on a guess.
   */
  targetStatus?: ReadonlyMap<string, ReservationStatus>;
  /** The property's buffer: the n nights before every active booking's arrival and after its departure are taken too. @default 0 */
  bufferNights?: number;
}

/** The range whose reservations can take a night of [from, to) with a buffer of `bufferNights`: what a store must read. */
export function bufferedRange(range: { from: string; to: string }, bufferNights = 0): { from: string; to: string } {
  return bufferNights > 0 ? { from: addDays(range.from, -bufferNights), to: addDays(range.to, bufferNights) } : range;
}

/**
 * Every night in [from, to) with whether it is free. A night is taken when an active reservation
 * covers it, or lies in the buffer of an active booking (its id is then listed too); an echo takes it
 * only while the stay it repeats is active (a cancelled direct stay's echo sold nothing on its channel).
 * O(nights + stays × their nights in range).
 */
export function availabilityNights(reservations: readonly AvailabilityInput[], options: AvailabilityOptions): AvailabilityNight[] {
  const { from, to } = options;
  const statusById = new Map<string, ReservationStatus>(options.targetStatus);
  for (const r of reservations) statusById.set(r.id, r.status);

  const nights: AvailabilityNight[] = [];
  const index = new Map<string, AvailabilityNight>();
  for (let date = from; date < to; date = addDays(date, 1)) {
    const night = { date, available: true, reservationIds: [] as string[] };
    nights.push(night);
    index.set(date, night);
  }

  const buffer = options.bufferNights ?? 0;
  for (const r of reservations) {
    if (!holdsNights(r, statusById)) continue;
    const [start, stop] = heldSpan(r, buffer);
    const first = start > from ? start : from;
    const end = stop < to ? stop : to;
    for (let date = first; date < end; date = addDays(date, 1)) {
      const night = index.get(date)!;
      night.available = false;
      night.reservationIds.push(r.id);
    }
  }
  return nights;
}

// The nights `r` keeps from others: its own, and a booking's buffer either side (echoes are blocks and get none).
function heldSpan(r: AvailabilityInput, buffer: number): [string, string] {
  if (buffer === 0 || r.kind !== "booking" || r.echoOf !== null) return [r.arrival, r.departure];
  return [addDays(r.arrival, -buffer), addDays(r.departure, buffer)];
}

/** The active reservations among `reservations` that hold at least one night in [from, to), their buffers included. */
export function takenBy<T extends AvailabilityInput>(reservations: readonly T[], options: AvailabilityOptions): T[] {
  const statusById = new Map<string, ReservationStatus>(options.targetStatus);
  for (const r of reservations) statusById.set(r.id, r.status);
  const buffer = options.bufferNights ?? 0;
  return reservations.filter((r) => {
    if (!holdsNights(r, statusById)) return false;
    const [start, stop] = heldSpan(r, buffer);
    return start < options.to && stop > options.from;
  });
}

function holdsNights(r: AvailabilityInput, statusById: ReadonlyMap<string, ReservationStatus>): boolean {
  if (r.status !== "active") return false;
  return r.echoOf === null || (statusById.get(r.echoOf) ?? "active") === "active";
}
