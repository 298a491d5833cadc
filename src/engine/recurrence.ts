// Recurring events (RRULE, EXDATE, RECURRENCE-ID) → one occurrence per date, each its own identity.
import ical, { type VEvent } from "node-ical";
import { formatDate } from "./local-date.js";
import { stableInstant } from "./wall-time.js";

/** One occurrence of a VEVENT (the event itself when it does not recur). */
export interface Occurrence {
  /** The component whose properties apply: the series, or its RECURRENCE-ID override. */
  event: Omit<VEvent, "recurrences">;
  start: Date;
  end: Date | undefined;
  allDay: boolean;
  /** Original date of a recurring occurrence (`YYYY-MM-DD` or ISO instant); undefined for single events. */
  recurrenceKey?: string;
}

/** Window of a recurrence expansion, around the sync's clock. */
export interface RecurrenceWindow {
  now: Date;
  /** Days ahead of `now`. @default 730 */
  horizonDays?: number;
  /** The calendar's X-WR-TIMEZONE, where floating times are read. */
  calendarZone?: string;
  /** Most occurrences returned for one series (capped at 5000). @default 5000 */
  maxOccurrences?: number;
}

/** Days before `now` still expanded, so that a stay in progress keeps its identity. */
const PAST_DAYS = 365;
/** Most occurrences taken from one series: a hostile `FREQ=SECONDLY` must not hang the sync. */
const MAX_OCCURRENCES = 5000;
const DAY_MS = 86_400_000;
const PERIOD_MS: Record<string, number> = {
  YEARLY: 365 * DAY_MS,
  MONTHLY: 28 * DAY_MS,
  WEEKLY: 7 * DAY_MS,
  DAILY: DAY_MS,
  HOURLY: 3_600_000,
  MINUTELY: 60_000,
  SECONDLY: 1000,
};

/**
 * Expands a VEVENT into its occurrences starting in [now − 365 days, now + horizonDays].
 * A single event is returned as is (never filtered by the window: the diff decides what is past).
 */
export function expandOccurrences(event: VEvent, window: RecurrenceWindow): Occurrence[] {
  const allDay = event.datetype === "date" || event.start?.dateOnly === true;
  const keyOf = (date: Date) => (allDay ? formatDate(date) : stableInstant(date, window.calendarZone).toISOString());
  if (!event.rrule) {
    // An override whose series is missing still names the occurrence it replaces.
    const recurrenceKey = isDate(event.recurrenceid) ? keyOf(event.recurrenceid) : undefined;
    return [{ event, start: event.start, end: event.end, allDay, ...(recurrenceKey ? { recurrenceKey } : {}) }];
  }

  const from = new Date(window.now.getTime() - PAST_DAYS * DAY_MS);
  const limit = Math.max(0, Math.min(MAX_OCCURRENCES, window.maxOccurrences ?? MAX_OCCURRENCES));
  const to = cappedEnd(event, from, new Date(window.now.getTime() + (window.horizonDays ?? 730) * DAY_MS), limit);
  const instances = limit === 0 ? [] : ical.expandRecurringEvent(event, { from, to }).slice(0, limit);
  return instances.map((instance) => {
    const original = instance.isOverride && isDate(instance.event.recurrenceid) ? instance.event.recurrenceid : instance.start;
    return { event: instance.event, start: instance.start, end: instance.end, allDay, recurrenceKey: keyOf(original) };
  });
}

/** Shortens the window so a dense rule yields at most `limit` occurrences (a rough upper bound, by rule parts). */
function cappedEnd(event: VEvent, from: Date, to: Date, limit: number): Date {
  const options = event.rrule?.options ?? {};
  const period = PERIOD_MS[String(options["freq"]).toUpperCase()] ?? DAY_MS;
  const interval = Math.max(1, Number(options["interval"]) || 1);
  let perPeriod = 1;
  for (const part of ["byDay", "byMonthDay", "byYearDay", "byHour", "byMinute", "bySecond", "bySetPos"]) {
    const value = options[part];
    if (Array.isArray(value) && value.length > 0) perPeriod *= value.length;
  }
  const start = isDate(event.start) && event.start > from ? event.start : from;
  const span = (Math.max(1, limit) / perPeriod) * period * interval;
  return new Date(Math.min(to.getTime(), start.getTime() + span));
}

function isDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}
