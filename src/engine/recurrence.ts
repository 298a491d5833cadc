// Recurring events (RRULE, RDATE, EXDATE, RECURRENCE-ID) → one occurrence per date, each its own identity.
// node-ical sees every date-time as a wall time written as UTC (zoned-times.ts); each occurrence's wall
// time is turned back into an instant here, in its series' zone.
import ical, { type VEvent } from "node-ical";
import { formatDate } from "./local-date.js";
import { recurrenceCost, type RuleOptions } from "./recurrence-cost.js";
import { wallToInstant } from "./wall-zones.js";
import { DTEND_KEY, RDATE_KEY, seriesLabel, ZONE_KEY, type SeriesZone } from "./zoned-times.js";

/** One occurrence of a VEVENT (the event itself when it does not recur). */
export interface Occurrence {
  /** The component whose properties apply: the series, or its RECURRENCE-ID override. */
  event: Omit<VEvent, "recurrences">;
  /** All-day: local midnight of the date (node-ical's way); timed: the instant. */
  start: Date;
  end: Date | undefined;
  allDay: boolean;
  /** Original date of a recurring occurrence (`YYYY-MM-DD` or ISO instant); undefined for single events. */
  recurrenceKey?: string;
  /** Timed events: the zone kept with the event (FeedEvent.zone); undefined for UTC. */
  zone?: string;
}

/** Window of a recurrence expansion, around the sync's clock. */
export interface RecurrenceWindow {
  now: Date;
  /** Days ahead of `now`. @default 730 */
  horizonDays?: number;
  /** The clocks the feed's X-CALSYNC-ZONE keys name (zoned-times.ts). @default none: wall times are UTC */
  zones?: Map<string, SeriesZone>;
}

/** Days before `now` still expanded, so that a stay in progress keeps its identity. */
const PAST_DAYS = 365;
const DAY_MS = 86_400_000;

type Component = Omit<VEvent, "recurrences">;
interface Instance {
  event: Component;
  start: Date;
  end: Date | undefined;
  /** The wall time (node-ical's date) of the occurrence this instance is or replaces. */
  original: Date;
  /** An RDATE period's own end (epoch ms), for a timed series. */
  periodEnd?: number;
}

/**
 * Expands a VEVENT into its occurrences starting in [now − 365 days, now + horizonDays]: DTSTART, RRULE
 * and RDATE, less EXDATE, with RECURRENCE-ID overrides. A single event is returned as is (never filtered
 * by the window: the diff decides what is past).
 */
export function expandOccurrences(event: VEvent, window: RecurrenceWindow): Occurrence[] {
  const allDay = isAllDay(event);
  const rdates = rdatesOf(event, allDay);
  if (!event.rrule && rdates.length === 0) {
    // An override whose series is missing still names the occurrence it replaces.
    const orphan = isDate(event.recurrenceid);
    const original = orphan ? event.recurrenceid! : event.start;
    const single = occurrenceOf({ event, start: event.start, end: event.end, original }, event, allDay, window);
    if (!orphan) delete single.recurrenceKey;
    return [single];
  }

  const { from, to } = windowOf(window);
  const instances: Instance[] = [];
  const seen = new Set<string>();
  if (event.rrule) {
    for (const instance of ical.expandRecurringEvent(event, { from, to })) {
      const original = instance.isOverride && isDate(instance.event.recurrenceid) ? instance.event.recurrenceid : instance.start;
      seen.add(wallKey(original, allDay));
      instances.push({ event: instance.event, start: instance.start, end: instance.end, original });
    }
  }
  // RDATE (and, without RRULE, DTSTART itself): node-ical reads neither into the set.
  const dates: RecurrenceDate[] = event.rrule ? rdates : [{ date: event.start }, ...rdates];
  for (const { date, end } of dates) {
    const key = wallKey(date, allDay);
    if (seen.has(key) || date < from || date > to) continue;
    seen.add(key);
    if (excluded(event, date, key, allDay)) continue;
    const override = (event.recurrences as Record<string, VEvent> | undefined)?.[key];
    if (override && !event.rrule) instances.push({ event: override, start: override.start, end: override.end, original: date });
    // With RRULE, node-ical already gave the override of an RDATE occurrence.
    else if (!override) instances.push({ event, start: date, end: endOf(date, event, allDay), original: date, periodEnd: end });
  }
  return instances.map((instance) => occurrenceOf(instance, event, allDay, window));
}

/** An instance with its wall times read back into instants in its series' zone. */
function occurrenceOf(instance: Instance, series: Component, allDay: boolean, window: RecurrenceWindow): Occurrence {
  if (allDay) return { event: instance.event, start: instance.start, end: instance.end, allDay, recurrenceKey: formatDate(instance.original) };
  const clock = clockOf(instance.event, window) ?? clockOf(series, window);
  const real = (wall: Date) => (clock && isDate(wall) ? new Date(wallToInstant(wall.getTime(), clock.zone)) : wall);
  const start = real(instance.start);
  // The DTEND's exact instant: an occurrence lasts exactly as long as its component (RFC 5545 §3.8.5.3).
  const dtend = exactEnd(instance.event);
  const own = real((instance.event as VEvent).start);
  // An RDATE period ends where it says (RFC 5545 §3.8.5.2), whatever the series' length.
  // A DURATION's days and weeks are nominal (on the wall clock), its hours, minutes and seconds exact (§3.3.6).
  const duration = dtend === undefined && clock && isDate(instance.start) ? durationOf(instance.event) : undefined;
  const end = instance.periodEnd !== undefined ? new Date(instance.periodEnd)
    : dtend !== undefined && isDate(start) && isDate(own) ? new Date(start.getTime() + dtend - own.getTime())
    : duration !== undefined ? new Date(wallToInstant(instance.start.getTime() + duration.days * DAY_MS, clock!.zone) + duration.exact)
    : instance.end && real(instance.end);
  const occurrence: Occurrence = { event: instance.event, start, end, allDay, recurrenceKey: real(instance.original).toISOString() };
  const zone = clock && isDate(start) ? seriesLabel(clock, start.getTime(), isDate(end) ? end.getTime() : undefined) : undefined;
  if (zone) occurrence.zone = zone;
  return occurrence;
}

function clockOf(component: Component, window: RecurrenceWindow): SeriesZone | undefined {
  const key: unknown = (component as Record<string, unknown>)[ZONE_KEY];
  return typeof key === "string" ? window.zones?.get(key) : undefined;
}

/** A component's DURATION, its nominal days (weeks as 7) and exact milliseconds; undefined when none or unreadable. */
function durationOf(component: Component): { days: number; exact: number } | undefined {
  const value: unknown = (component as { duration?: unknown }).duration;
  const text = typeof value === "string" ? value : (value as { val?: unknown } | undefined)?.val;
  const match = typeof text === "string" ? DURATION.exec(text.trim()) : null;
  if (!match || match.slice(2).every((part) => part === undefined)) return undefined;
  const [weeks, days, hours, minutes, seconds] = match.slice(2).map((part) => Number(part ?? 0)) as number[];
  const sign = match[1] === "-" ? -1 : 1;
  return { days: sign * (weeks! * 7 + days!), exact: sign * ((hours! * 60 + minutes!) * 60 + seconds!) * 1000 };
}

/** RFC 5545 §3.3.6 (`P1W`, `P1DT2H`, `PT24H`; a `T` before a week count, as some feeds write, too). */
const DURATION = /^([+-])?P(?:T?(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/i;

function exactEnd(component: Component): number | undefined {
  const value: unknown = (component as Record<string, unknown>)[DTEND_KEY];
  const ms = typeof value === "string" ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** One date of the set: node-ical's kind of date, and a period's own end (epoch ms) where it has one. */
interface RecurrenceDate {
  date: Date;
  end?: number;
}

/**
 * The series' RDATEs as node-ical would give its dates: local midnight for a DATE, else the wall time as
 * UTC; a period (zoned-times.ts writes its end's instant after a slash) with its end.
 */
function rdatesOf(event: Component, allDay: boolean): RecurrenceDate[] {
  const value: unknown = (event as Record<string, unknown>)[RDATE_KEY];
  if (typeof value !== "string" || !value) return [];
  const dates: RecurrenceDate[] = [];
  for (const text of value.split(",")) {
    const match = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z)?(?:\/(.+))?$/.exec(text);
    if (!match) continue;
    const [y, mo, d, h, mi, s] = match.slice(1, 7).map((part) => Number(part ?? 0)) as number[];
    // A DATE in a timed series (or a date-time in an all-day one) names the day: read as the series' kind.
    // So does a period in an all-day series: the day it starts, as long as the series' first.
    if (allDay) dates.push({ date: new Date(y!, mo! - 1, d!) });
    else if (match[4] !== undefined) {
      const date = new Date(Date.UTC(y!, mo! - 1, d!, h, mi, s));
      const end = match[7] === undefined ? NaN : Date.parse(match[7]);
      dates.push(Number.isNaN(end) ? { date } : { date, end });
    }
  }
  return dates;
}

function wallKey(date: Date, allDay: boolean): string {
  return allDay ? formatDate(date) : date.toISOString();
}

function excluded(event: Component, date: Date, key: string, allDay: boolean): boolean {
  const exdate = (event as VEvent).exdate as unknown as Record<string, Date & { dateOnly?: boolean }> | undefined;
  if (!exdate) return false;
  if (allDay) return Object.hasOwn(exdate, key);
  return Object.hasOwn(exdate, key) || exdate[key.slice(0, 10)]?.dateOnly === true;
}

/** The end of an RDATE occurrence: as long as the series' first one. */
function endOf(date: Date, event: Component, allDay: boolean): Date | undefined {
  if (!isDate(event.end) || !isDate(event.start)) return undefined;
  if (allDay) {
    const days = Math.round((Date.UTC(event.end.getFullYear(), event.end.getMonth(), event.end.getDate()) - Date.UTC(event.start.getFullYear(), event.start.getMonth(), event.start.getDate())) / DAY_MS);
    return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days);
  }
  return new Date(date.getTime() + event.end.getTime() - event.start.getTime());
}

/** Each series costs this many dates' worth of work before its first date (measured: about 0.35 ms). */
const SERIES_COST = 20;
/** node-ical checks every date of an all-day series against each EXDATE in turn: 16 checks cost about a date. */
const EXDATE_CHECKS_PER_DATE = 16;

/**
 * The work expanding `event` takes, in dates visited (0 for a single event): what `expandOccurrences`
 * will cost. An upper bound on the dates; a fixed cost per series, its RDATEs and, for all-day series, their EXDATEs.
 */
export function expansionCost(event: VEvent, window: RecurrenceWindow): number {
  const rdates = rdatesOf(event, isAllDay(event)).length;
  if (!event.rrule) return rdates === 0 ? 0 : SERIES_COST + rdates;
  const { from, to } = windowOf(window);
  const dates = recurrenceCost(event.rrule.options as RuleOptions, from, to);
  const allDay = isAllDay(event);
  const exdates = allDay && event.exdate ? new Set(Object.values(event.exdate)).size : 0;
  return SERIES_COST + rdates + Math.ceil(dates * (1 + exdates / EXDATE_CHECKS_PER_DATE));
}

function windowOf(window: RecurrenceWindow): { from: Date; to: Date } {
  return {
    from: new Date(window.now.getTime() - PAST_DAYS * DAY_MS),
    to: new Date(window.now.getTime() + (window.horizonDays ?? 730) * DAY_MS),
  };
}

function isAllDay(event: Component): boolean {
  return event.datetype === "date" || (event as VEvent).start?.dateOnly === true;
}

function isDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}
