// Turnovers (CONTRACT §18): the guests leave, someone cleans, the next guests arrive. Pure: the API, the CLI,
// the dashboard's Cleaning page and the cleaning feed read them through this one function.
//
// Decisions (see docs/turnovers.md):
// - A turnover is the departure date of an active booking (not a block, not an echo); its next arrival is
//   the first arrival of another active booking of the property on or after that date. A booking that
//   arrives before the departing one leaves overlaps it: a double booking, never a "next arrival".
// - Tight: the next arrival falls within the departing booking's buffer (arrival < departure + n), i.e.
//   one booking's nights lie in the other's buffer. A same-day turnover is tight when n > 0.
import type { Turnover } from "../resource-types.js";
import { addDays } from "./nights.js";

export type { Turnover };

/** An active booking as turnovers need it: dates and ids only, nothing about the guest. */
export interface TurnoverBookingInput {
  id: string;
  propertyId: string;
  /** First night, `YYYY-MM-DD`. */
  arrival: string;
  /** The morning after the last night, `YYYY-MM-DD`: the turnover's date. */
  departure: string;
}

/** A property's turnover settings. */
export interface TurnoverSettings {
  propertyId: string;
  checkInTime: string;
  checkOutTime: string;
  bufferNights: number;
}

/**
 * The turnovers of one property dated in [from, to), by date, then departing reservation id.
 * `bookings` are the property's active bookings (any order); O(n log n).
 */
export function propertyTurnovers(
  bookings: readonly TurnoverBookingInput[],
  settings: TurnoverSettings,
  range: { from: string; to: string },
): Turnover[] {
  const mine = bookings.filter((b) => b.propertyId === settings.propertyId);
  const arrivals = [...mine].sort((a, b) => compare(a.arrival, b.arrival) || compare(a.id, b.id));
  const turnovers: Turnover[] = [];
  for (const departing of mine) {
    const date = departing.departure;
    if (date < range.from || date >= range.to) continue;
    const next = firstArrivalFrom(arrivals, date, departing.id);
    turnovers.push({
      date,
      propertyId: settings.propertyId,
      departingReservationId: departing.id,
      checkOutTime: settings.checkOutTime,
      nextArrival: next && { date: next.arrival, reservationId: next.id, checkInTime: settings.checkInTime },
      sameDay: next?.arrival === date,
      tight: next !== null && next.arrival < addDays(date, settings.bufferNights),
    });
  }
  return turnovers.sort(compareTurnovers);
}

/** The turnovers of several properties in [from, to) each (a property's own range), by date, then departing reservation id. */
export function ownerTurnovers(
  bookings: readonly TurnoverBookingInput[],
  properties: ReadonlyArray<TurnoverSettings & { range: { from: string; to: string } }>,
): Turnover[] {
  const byProperty = new Map<string, TurnoverBookingInput[]>();
  for (const b of bookings) {
    const list = byProperty.get(b.propertyId);
    if (list) list.push(b);
    else byProperty.set(b.propertyId, [b]);
  }
  return properties.flatMap((p) => propertyTurnovers(byProperty.get(p.propertyId) ?? [], p, p.range)).sort(compareTurnovers);
}

/** The one order of turnovers everywhere: by date, then departing reservation id. */
export function compareTurnovers(a: Turnover, b: Turnover): number {
  return compare(a.date, b.date) || compare(a.departingReservationId, b.departingReservationId);
}

// First booking (by arrival, then id) arriving on or after `date`, other than `self`: binary search, then skip self.
function firstArrivalFrom(sorted: readonly TurnoverBookingInput[], date: string, self: string): TurnoverBookingInput | null {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.arrival < date) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < sorted.length; i++) if (sorted[i]!.id !== self) return sorted[i]!;
  return null;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
