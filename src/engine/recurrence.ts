// Recurring events (RRULE, EXDATE, RECURRENCE-ID) → one occurrence per date, each its own identity.
import ical, { type VEvent } from "node-ical";
import { formatDate } from "./local-date.js";
import { recurrenceCost, type RuleOptions } from "./recurrence-cost.js";
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
}

/** Days before `now` still expanded, so that a stay in progress keeps its identity. */
const PAST_DAYS = 365;
const DAY_MS = 86_400_000;

/**
 * Expands a VEVENT into its occurrences starting in [now − 365 days, now + horizonDays].
 * A single event is returned as is (never filtered by the window: the diff decides what is past).
 */
export function expandOccurrences(event: VEvent, window: RecurrenceWindow): Occurrence[] {
  const allDay = isAllDay(event);
  const keyOf = (date: Date) => (allDay ? formatDate(date) : stableInstant(date, window.calendarZone).toISOString());
  if (!event.rrule) {
    // An override whose series is missing still names the occurrence it replaces.
    const single: Occurrence = { event, start: event.start, end: event.end, allDay };
    if (isDate(event.recurrenceid)) single.recurrenceKey = keyOf(event.recurrenceid);
    return [single];
  }

  const { from, to } = windowOf(window);
  return ical.expandRecurringEvent(event, { from, to }).map((instance) => {
    const original = instance.isOverride && isDate(instance.event.recurrenceid) ? instance.event.recurrenceid : instance.start;
    return { event: instance.event, start: instance.start, end: instance.end, allDay, recurrenceKey: keyOf(original) };
  });
}

/** Each series costs this many dates' worth of work before its first date (measured: about 0.35 ms). */
const SERIES_COST = 20;
/** node-ical checks every date of an all-day series against each EXDATE in turn: 16 checks cost about a date. */
const EXDATE_CHECKS_PER_DATE = 16;

/**
 * The work expanding `event` takes, in dates visited (0 for a single event): what `expandOccurrences`
 * will cost. An upper bound on the dates; a fixed cost per series and, for all-day series, their EXDATEs.
 */
export function expansionCost(event: VEvent, window: RecurrenceWindow): number {
  if (!event.rrule) return 0;
  const { from, to } = windowOf(window);
  const dates = recurrenceCost(event.rrule.options as RuleOptions, from, to);
  const allDay = isAllDay(event);
  const exdates = allDay && event.exdate ? new Set(Object.values(event.exdate)).size : 0;
  return SERIES_COST + Math.ceil(dates * (1 + exdates / EXDATE_CHECKS_PER_DATE));
}

function windowOf(window: RecurrenceWindow): { from: Date; to: Date } {
  return {
    from: new Date(window.now.getTime() - PAST_DAYS * DAY_MS),
    to: new Date(window.now.getTime() + (window.horizonDays ?? 730) * DAY_MS),
  };
}

function isAllDay(event: VEvent): boolean {
  return event.datetype === "date" || event.start?.dateOnly === true;
}

function isDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}
