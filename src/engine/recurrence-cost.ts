// An upper bound on the dates a recurrence rule makes the expander visit, known before it runs.
// Expansion is synchronous: a 300-byte RRULE can ask for millions of candidates and hold the
// event loop for minutes, so the parser checks this bound first and refuses a rule that is too dense.

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const PERIOD_MS: Record<string, number> = {
  YEARLY: 366 * DAY_MS,
  MONTHLY: 28 * DAY_MS,
  WEEKLY: 7 * DAY_MS,
  DAILY: DAY_MS,
  HOURLY: HOUR_MS,
  MINUTELY: 60_000,
  SECONDLY: 1000,
};

/** The parts of a rule the bound reads (node-ical's `rrule.options`). */
export interface RuleOptions {
  freq?: unknown;
  interval?: unknown;
  count?: unknown;
  until?: unknown;
  dtstart?: unknown;
  byMonth?: unknown;
  byWeekNo?: unknown;
  byYearDay?: unknown;
  byMonthDay?: unknown;
  byDay?: unknown;
  byHour?: unknown;
  byMinute?: unknown;
  bySecond?: unknown;
  bySetPos?: unknown;
}

/**
 * At most how many candidate dates expanding `rule` over [from, to] visits (BYSETPOS only filters,
 * so it is left out). With COUNT the expander starts at DTSTART, so the span does too.
 */
export function recurrenceCost(rule: RuleOptions, from: Date, to: Date): number {
  const freq = String(rule.freq).toUpperCase();
  const period = PERIOD_MS[freq];
  if (period === undefined) return 0;
  const interval = Math.max(1, Number(rule.interval) || 1);
  const count = Number(rule.count) > 0 ? Number(rule.count) : undefined;
  const dtstart = isDate(rule.dtstart) ? rule.dtstart.getTime() : from.getTime();
  const until = isDate(rule.until) ? rule.until.getTime() : Infinity;
  const start = count === undefined ? Math.max(from.getTime(), dtstart) : dtstart;
  const end = Math.min(to.getTime(), until);
  if (end < start) return 0;

  const periods = Math.floor((end - start) / (period * interval)) + 1;
  const perPeriod = daysPerPeriod(freq, rule) * timesPerDay(freq, rule);
  const visited = periods * perPeriod;
  // COUNT ends the expansion early only where every period is sure to yield a date.
  return count !== undefined && everyPeriodYields(freq, rule) ? Math.min(visited, count * perPeriod) : visited;
}

/**
 * True when no part of the rule can leave a period without dates: parts that only expand it
 * (BYHOUR in a DAILY rule, plain weekdays in a WEEKLY one), never parts that filter it
 * (BYMONTH, BYMONTHDAY, BYSETPOS, BYDAY in a DAILY rule, an ordinal such as 5MO, BYHOUR in an HOURLY one).
 */
function everyPeriodYields(freq: string, rule: RuleOptions): boolean {
  const filters: (keyof RuleOptions)[] = ["byMonth", "byWeekNo", "byYearDay", "byMonthDay", "bySetPos"];
  if (filters.some((part) => size(rule, part) > 0)) return false;
  const finer = ["DAILY", "HOURLY", "MINUTELY", "SECONDLY"];
  const byDay = Array.isArray(rule.byDay) ? rule.byDay : [];
  if (byDay.length > 0 && (finer.includes(freq) || !byDay.every((day) => /^[A-Z]{2}$/i.test(String(day))))) return false;
  if (size(rule, "byHour") > 0 && finer.slice(1).includes(freq)) return false;
  if (size(rule, "byMinute") > 0 && finer.slice(2).includes(freq)) return false;
  return !(size(rule, "bySecond") > 0 && freq === "SECONDLY");
}

/** Candidate days in one period of a YEARLY, MONTHLY or WEEKLY rule (1 for finer ones). */
function daysPerPeriod(freq: string, rule: RuleOptions): number {
  const byDay = size(rule, "byDay");
  const byMonthDay = size(rule, "byMonthDay");
  const byMonth = size(rule, "byMonth");
  // Each day part, even one RFC 5545 forbids at this frequency, can only pick days of the period;
  // the bounds add up rather than intersect, as the expander does not always intersect them.
  const dayParts = byDay + byMonthDay + size(rule, "byYearDay") + size(rule, "byWeekNo");
  const others = dayParts - byDay - byMonthDay; // BYYEARDAY, BYWEEKNO: no tighter bound below a year
  if (freq === "WEEKLY") return dayParts === 0 ? 1 : dayParts === byDay ? Math.min(7, byDay) : 7;
  if (freq === "MONTHLY") return dayParts === 0 ? 1 : others ? 31 : Math.min(31, byMonthDay + byDay * 5);
  if (freq !== "YEARLY") return 1;
  const bounds: number[] = [];
  const months = byMonth || 12;
  if (size(rule, "byYearDay")) bounds.push(size(rule, "byYearDay"));
  if (size(rule, "byWeekNo")) bounds.push(size(rule, "byWeekNo") * 7);
  if (byMonthDay) bounds.push(byMonthDay * months);
  if (byDay) bounds.push(byDay * (byMonth ? 5 * months : 53));
  return dayParts ? Math.min(366, sum(bounds)) : byMonth || 1;
}

/** Candidate times in one day (or in one period, for HOURLY and finer). */
function timesPerDay(freq: string, rule: RuleOptions): number {
  const hours = size(rule, "byHour") || 1;
  const minutes = size(rule, "byMinute") || 1;
  const seconds = size(rule, "bySecond") || 1;
  if (freq === "SECONDLY") return 1;
  if (freq === "MINUTELY") return seconds;
  if (freq === "HOURLY") return minutes * seconds;
  return hours * minutes * seconds;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function size(rule: RuleOptions, part: keyof RuleOptions): number {
  const value = rule[part];
  return Array.isArray(value) ? value.length : 0;
}

function isDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}
