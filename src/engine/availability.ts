// Which nights of a property are free (CONTRACT §14 "Availability", §15). Pure: the API, the
// direct-stay check, the public availability feed and the CLI all read nights through this one rule.
import type { ReservationStatus } from "./model.js";
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
}

/**
 * Every night in [from, to) with whether it is free. A night is taken when an active reservation
 * covers it; an echo takes it only while the stay it repeats is active (a cancelled direct stay's
 * echo sold nothing on its channel). O(nights + stays × their nights in range).
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

  for (const r of reservations) {
    if (!holdsNights(r, statusById)) continue;
    const first = r.arrival > from ? r.arrival : from;
    const end = r.departure < to ? r.departure : to;
    for (let date = first; date < end; date = addDays(date, 1)) {
      const night = index.get(date)!;
      night.available = false;
      night.reservationIds.push(r.id);
    }
  }
  return nights;
}

/** The active reservations among `reservations` that hold at least one night in [from, to). */
export function takenBy(reservations: readonly AvailabilityInput[], options: AvailabilityOptions): AvailabilityInput[] {
  const statusById = new Map<string, ReservationStatus>(options.targetStatus);
  for (const r of reservations) statusById.set(r.id, r.status);
  return reservations.filter((r) => holdsNights(r, statusById) && r.arrival < options.to && r.departure > options.from);
}

function holdsNights(r: AvailabilityInput, statusById: ReadonlyMap<string, ReservationStatus>): boolean {
  if (r.status !== "active") return false;
  return r.echoOf === null || (statusById.get(r.echoOf) ?? "active") === "active";
}
