// Strict reading of iCalendar DATE and DATE-TIME values (RFC 5545 §3.3.4, §3.3.5). node-ical hands
// what it finds to JavaScript's Date, which rolls impossible dates over without a word (30 February
// → 2 March, month 13 → next year), so a damaged line would move or stretch a stay.

/** `20261223`, `20261223T150000` or `20261223T150000Z` (a lower-case `t`/`z` is not iCalendar). */
const FORM = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z?)?$/;

/** Longest part of a bad value quoted back in a message. */
const QUOTED = 40;

/**
 * Why `value` is not a real DATE or DATE-TIME, or null when it is one. Never rolls over: month 13,
 * 30 February, hour 24 and second 60 are all refused.
 */
export function icalDateProblem(value: string): string | null {
  const match = FORM.exec(value);
  if (!match) return `${quote(value)} is not a date`;
  const part = (at: number) => Number(match[at] ?? 0);
  const year = part(1);
  const month = part(2);
  const day = part(3);
  const hour = part(4);
  const minute = part(5);
  const second = part(6);
  const fault = calendarDateFault(year, month, day);
  if (fault) return `${quote(value)} is not a real date (${fault})`;
  // Leap seconds (60) exist in RFC 5545 but in no booking feed; reading one would roll into the next minute.
  if (hour > 23 || minute > 59 || second > 59) return `${quote(value)} is not a real time of day`;
  return null;
}

/** What is wrong with a year, month (1–12) and day as a calendar date ("no month 13"), or null when it is a real one. */
export function calendarDateFault(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12) return `no month ${month}`;
  if (day < 1 || day > daysInMonth(year, month)) return `no day ${day} in that month`;
  return null;
}

/** Days of `month` (1–12) in the proleptic Gregorian calendar. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function quote(value: string): string {
  return JSON.stringify(value.length > QUOTED ? `${value.slice(0, QUOTED)}…` : value);
}
