// Whether an RRULE value can be read (RFC 5545 §3.3.10), judged on the text before node-ical sees it:
// node-ical throws on a rule it cannot read, and a throw fails the whole feed, every other event with it.
// A series whose rule cannot be read is one unreadable event instead (CONTRACT §4). Names and values are
// already upper case here (canonical-lines.ts).
import { icalDateProblem } from "./strict-date.js";

const FREQUENCIES = new Set(["SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"]);
const WEEKDAY = "(?:SU|MO|TU|WE|TH|FR|SA)";

/** Each rule part's value: a list of numbers within ± bounds, a weekday list, or a form of its own. */
const PARTS: Record<string, (value: string) => boolean> = {
  FREQ: (value) => FREQUENCIES.has(value),
  UNTIL: (value) => icalDateProblem(value) === null,
  COUNT: (value) => /^\d{1,9}$/.test(value) && Number(value) > 0,
  INTERVAL: (value) => /^\d{1,9}$/.test(value) && Number(value) > 0,
  BYSECOND: numbers(0, 60, false),
  BYMINUTE: numbers(0, 59, false),
  BYHOUR: numbers(0, 23, false),
  BYDAY: (value) => new RegExp(`^(?:[+-]?(?:[1-9]|[1-4]\\d|5[0-3])?${WEEKDAY})(?:,(?:[+-]?(?:[1-9]|[1-4]\\d|5[0-3])?${WEEKDAY}))*$`).test(value),
  BYMONTHDAY: numbers(1, 31, true),
  BYYEARDAY: numbers(1, 366, true),
  BYWEEKNO: numbers(1, 53, true),
  BYMONTH: numbers(1, 12, false),
  BYSETPOS: numbers(1, 366, true),
  WKST: (value) => new RegExp(`^${WEEKDAY}$`).test(value),
};

/** Why `value` is not a readable RRULE, or null when it is one. Parts it does not know are left alone, as node-ical leaves them. */
export function rruleProblem(value: string): string | null {
  const seen = new Set<string>();
  for (const part of value.split(";")) {
    const equals = part.indexOf("=");
    const name = equals < 0 ? part : part.slice(0, equals);
    const check = PARTS[name];
    if (equals < 0 || !/^[A-Z0-9-]+$/.test(name)) return `${quote(value)} cannot be read (${quote(part)})`;
    if (seen.has(name)) return `${quote(value)} cannot be read (${name} twice)`;
    seen.add(name);
    if (check && !check(part.slice(equals + 1))) return `${quote(value)} cannot be read (${quote(part)})`;
  }
  return seen.has("FREQ") ? null : `${quote(value)} cannot be read (no FREQ)`;
}

/** A comma list of integers within [min, max], or within ±[min, max] when `signed`. */
function numbers(min: number, max: number, signed: boolean): (value: string) => boolean {
  const form = signed ? /^[+-]?\d{1,3}$/ : /^\+?\d{1,3}$/;
  return (value) =>
    value.split(",").every((item) => {
      if (!form.test(item)) return false;
      const size = Math.abs(Number(item));
      return size >= min && size <= max;
    });
}

function quote(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
}
