// What changed in a property's turnovers because of one sync (CONTRACT §18 "Cleaners by mail"): the list a
// cleaner's mail is written from. Pure and guest-free: dates, times and "same day" only, never a name,
// channel, summary or note. The caller computes `before` and `after` over the same window (the next 14 days
// in the property's zone), so a turnover that moves out of the window reads as gone, and one that moves in
// as new.
import type { Turnover } from "../resource-types.js";
import { compareTurnovers } from "./turnovers.js";

/** One line of a cleaner's mail. */
export interface TurnoverChange {
  change: "new" | "moved" | "cancelled";
  /** The turnover as it is now (`moved`, `new`) or as it was (`cancelled`). */
  date: string;
  checkOutTime: string;
  /** The next arrival's date and check-in time, or null when nobody arrives after. */
  nextArrival: { date: string; checkInTime: string } | null;
  sameDay: boolean;
  /** `moved` only: the date it had before. */
  previousDate?: string;
}

/**
 * The changes from `before` to `after`, by date. A turnover is the same one across syncs when its departing
 * reservation is (its id is stable: the channel's UID); it moved when its date, times or next arrival differ.
 */
export function turnoverChanges(before: readonly Turnover[], after: readonly Turnover[]): TurnoverChange[] {
  const was = new Map(before.map((t) => [t.departingReservationId, t]));
  const is = new Map(after.map((t) => [t.departingReservationId, t]));
  const changes: Array<{ at: Turnover; line: TurnoverChange }> = [];
  for (const t of after) {
    const old = was.get(t.departingReservationId);
    if (!old) changes.push({ at: t, line: { change: "new", ...lineOf(t) } });
    else if (key(old) !== key(t)) changes.push({ at: t, line: { change: "moved", ...lineOf(t), previousDate: old.date } });
  }
  for (const t of before) {
    if (!is.has(t.departingReservationId)) changes.push({ at: t, line: { change: "cancelled", ...lineOf(t) } });
  }
  return changes.sort((a, b) => compareTurnovers(a.at, b.at)).map((c) => c.line);
}

function lineOf(t: Turnover): Omit<TurnoverChange, "change"> {
  return {
    date: t.date,
    checkOutTime: t.checkOutTime,
    nextArrival: t.nextArrival && { date: t.nextArrival.date, checkInTime: t.nextArrival.checkInTime },
    sameDay: t.sameDay,
  };
}

/** What a cleaner sees of a turnover; equal keys mean nothing worth a mail changed. */
function key(t: Turnover): string {
  return JSON.stringify([t.date, t.checkOutTime, t.nextArrival?.date ?? null, t.nextArrival?.checkInTime ?? null, t.sameDay]);
}
