// The nights an availability question asks about (CONTRACT §14 "Availability", §15): `from` and `to` as
// the query gives them, checked once for every door (the API, the public feed).
import { addDays } from "./nights.js";
import { icalDateProblem } from "./strict-date.js";

/** Nights answered when `to` is left out: a year. */
export const DEFAULT_AVAILABILITY_NIGHTS = 365;

/** Most nights one question may ask about: two years and a leap day's worth. */
export const MAX_AVAILABILITY_NIGHTS = 732;

/** The range asked for, or the parameter that cannot be read and why. */
export type AvailabilityRange =
  | { ok: true; from: string; to: string }
  | { ok: false; parameter: "from" | "to"; message: string };

/**
 * [from, to) from the query's `from` and `to` (`YYYY-MM-DD`, null when absent): `from` defaults to
 * `today` (the property's, CONTRACT §8), `to` to `from` + 365 days. A date that is not a real one,
 * `to` ≤ `from`, or more than 732 nights is refused, naming the parameter.
 */
export function availabilityRange(query: { from: string | null; to: string | null }, today: string): AvailabilityRange {
  const fromProblem = query.from === null ? null : dateProblem("from", query.from);
  if (fromProblem) return { ok: false, parameter: "from", message: fromProblem };
  const from = query.from ?? today;
  if (query.to === null) return { ok: true, from, to: addDays(from, DEFAULT_AVAILABILITY_NIGHTS) };

  const toProblem = dateProblem("to", query.to);
  if (toProblem) return { ok: false, parameter: "to", message: toProblem };
  const to = query.to;
  if (to <= from) return { ok: false, parameter: "to", message: `to (${to}) must be after from (${from}): it is the morning after the last night` };
  if (to > addDays(from, MAX_AVAILABILITY_NIGHTS)) {
    return { ok: false, parameter: "to", message: `to is more than ${MAX_AVAILABILITY_NIGHTS} nights after from (${from}); ask for at most ${MAX_AVAILABILITY_NIGHTS} nights at once` };
  }
  return { ok: true, from, to };
}

function dateProblem(parameter: "from" | "to", value: string): string | null {
  const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${parameter} must be a date written YYYY-MM-DD, not ${shown}`;
  return icalDateProblem(value.replaceAll("-", "")) ? `${parameter} ${shown} is not a real date` : null;
}
