// Reservations as the nights they occupy: the unit channels sell, and the unit the outbound feed
// and double-booking detection both work in.
import { isAllDay } from "./model.js";

/** A run of nights as all-day dates; `end` is exclusive (the check-out day). */
export interface NightRange {
  start: string;
  end: string;
}

const DAY_MS = 86_400_000;

/**
 * The calendar date of a stored date: an all-day `YYYY-MM-DD` as written, a timed instant by its
 * UTC date (stored instants are UTC; the property's own time zone is not known here).
 */
export function calendarDate(value: string): string {
  if (isAllDay(value)) return value;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`not a date: ${JSON.stringify(value)}`);
  return new Date(ms).toISOString().slice(0, 10);
}

/** `date` (`YYYY-MM-DD`) moved by `days`, computed in UTC so no local offset can shift it. */
export function addDays(date: string, days: number): string {
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms)) throw new RangeError(`not a date: ${JSON.stringify(date)}`);
  return new Date(ms + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The nights a reservation covers: start date up to end date (exclusive), at least one night.
 * A timed stay 15:00 → 11:00 three days later covers three nights, and its check-out day stays
 * free for the next guest, exactly like the all-day form of the same stay.
 */
export function nightsOf(start: string, end: string): NightRange {
  const first = calendarDate(start);
  const last = calendarDate(end);
  // A same-day (or inverted) event still takes the night it starts on.
  return { start: first, end: last > first ? last : addDays(first, 1) };
}
