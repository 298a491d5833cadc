// parseFeed(): one feed body → normalised events (dates as written, kind, identity). Never throws.
import { createHash } from "node:crypto";
import ical, { type VEvent } from "node-ical";
import type { CalendarSource, SyncError } from "../types.js";
import { canonicalLines } from "./canonical-lines.js";
import { describeEvent, emptyBodyIsEmptyCalendar } from "./channels.js";
import { looksLikeHtml } from "./html-answer.js";
import { oneLineText } from "./control-characters.js";
import { addLocalDays, formatDate } from "./local-date.js";
import { NO_UID_PREFIX, type FeedEvent } from "./model.js";
import { expandOccurrences, expansionCost, type Occurrence } from "./recurrence.js";
import { keptUid } from "./uid.js";
import { distinctUnreadable, setAsideUnreadable, unreadableIdentities, type UnreadableEvent } from "./unreadable-events.js";
import { zoneFeedTimes } from "./zoned-times.js";

export { formatDate } from "./local-date.js";

/** Options of one parse. */
export interface ParseFeedOptions {
  /** Channel of the calendar: decides `kind` and details. */
  source: CalendarSource;
  /** The sync's clock: recurring events are expanded around it. */
  now: Date;
  /** Recurring events are expanded from one year back to this many days ahead. @default 730 */
  horizonDays?: number;
}

/**
 * Result of parsing one feed: events (and the events left out because their dates cannot be read),
 * or why the body is not a usable calendar.
 */
export type ParseFeedResult =
  | { ok: true; events: FeedEvent[]; unreadable: UnreadableEvent[] }
  | { ok: false; error: SyncError };

/**
 * Most dates all recurring series of one feed may make the expander visit (by `expansionCost`,
 * an upper bound known before expanding; a second of work at most). A feed beyond it fails with
 * parse_error rather than hanging or being cut short: a cut feed would cancel.
 */
const MAX_RECURRING_OCCURRENCES = 50_000;

/** The iCalendar properties kept as `raw`, by node-ical's name for each. */
const RAW_FIELDS = Object.entries({
  UID: "uid",
  SUMMARY: "summary",
  DESCRIPTION: "description",
  LOCATION: "location",
  STATUS: "status",
  DTSTAMP: "dtstamp",
  "LAST-MODIFIED": "lastmodified",
  SEQUENCE: "sequence",
} as const);


/** Wall-clock limit on expanding one feed's recurring events, checked between series. */
const MAX_EXPANSION_MS = 2000;
const SLOW_EXPANSION = `recurring events took more than ${MAX_EXPANSION_MS / 1000} s to expand`;

/** Parses an iCalendar body into normalised events (CONTRACT §4); bad input is an error value. */
export function parseFeed(text: string, options: ParseFeedOptions): ParseFeedResult {
  // node-ical splits lines on \r?\n and keeps a BOM in the first line; CR-only feeds exist.
  const bom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // NUL is no iCalendar character (RFC 5545 §3.1) and PostgreSQL text cannot store it: both stores get the same text.
  const unmarked = bom.includes("\0") ? bom.replaceAll("\0", "") : bom;
  // Unfolded, names and enumerations in upper case, before any reader (the structure check too) looks.
  const body = canonicalLines(hasLoneCr(unmarked) ? unmarked.replace(/\r\n?/g, "\n") : unmarked);
  if (!body.trim() && emptyBodyIsEmptyCalendar(options.source)) return { ok: true, events: [], unreadable: [] };
  const problem = structuralProblem(body);
  if (problem) return { ok: false, error: { code: "not_icalendar", message: `feed is not an iCalendar file (${problem})` } };

  const { body: readable, unreadable } = setAsideUnreadable(body);
  // What node-ical still makes of an unreadable UID (another copy of it, the series of an unreadable
  // override) is left out too: which copy is right cannot be known.
  const setAside = unreadableIdentities(unreadable.filter((event) => event.uid !== "").map((event) => event.uid));
  let parsed: ReturnType<typeof ical.sync.parseICS>;
  let zones: ReturnType<typeof zoneFeedTimes>["zones"];
  try {
    const zoned = zoneFeedTimes(readable);
    zones = zoned.zones;
    parsed = quietly(() => ical.sync.parseICS(zoned.body));
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 200) : "unknown error";
    return { ok: false, error: { code: "parse_error", message: `feed could not be parsed: ${reason}` } };
  }

  try {
    // Duplicate identities count once: the last one wins (a Map, so "__proto__" is just a key).
    const events = new Map<string, FeedEvent>();
    const components = componentsOf(parsed);
    const window = { ...options, zones };
    const cost = components.reduce((total, component) => total + expansionCost(component, window), 0);
    if (cost > MAX_RECURRING_OCCURRENCES) {
      const message = `feed expands to more than ${MAX_RECURRING_OCCURRENCES} recurring occurrences`;
      return { ok: false, error: { code: "parse_error", message } };
    }
    const started = performance.now();
    quietly(() => {
      for (const component of components) {
        // The cost bound is in dates; a date's work varies a hundredfold between rule shapes and zones.
        if (component.rrule && performance.now() - started > MAX_EXPANSION_MS) throw new Error(SLOW_EXPANSION);
        for (const occurrence of expandOccurrences(component, window)) {
          // "Free" time (TRANSP:TRANSPARENT: a reminder, a plumber's call) takes no night: no reservation.
          if (isTransparent(occurrence.event)) continue;
          const event = toFeedEvent(occurrence, options.source);
          if (!event) {
            // What the raw-text check let through and node-ical still could not read.
            const uid = typeof occurrence.event.uid === "string" ? keptUid(occurrence.event.uid.trim()) : "";
            unreadable.push({ uid, message: `${isValidDate(occurrence.start) ? "DTEND" : "DTSTART"} could not be read` });
            continue;
          }
          if (setAside(event.uid)) continue;
          events.delete(event.uid);
          events.set(event.uid, event);
        }
      }
    });
    return { ok: true, events: [...events.values()], unreadable: distinctUnreadable(unreadable) };
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 200) : "unknown error";
    return { ok: false, error: { code: "parse_error", message: `feed could not be read: ${reason}` } };
  }
}

/** Whether a CR ends a line on its own somewhere (indexOf from CR to CR, cheaper than a regex's lookahead at each). */
function hasLoneCr(text: string): boolean {
  for (let at = text.indexOf("\r"); at >= 0; at = text.indexOf("\r", at + 1)) {
    if (text.charCodeAt(at + 1) !== 10) return true;
  }
  return false;
}

/** Why the body is not a whole calendar, or null. node-ical itself returns `{}` for all of these. */
function structuralProblem(body: string): string | null {
  const trimmed = body.trim();
  if (!trimmed) return "empty";
  if (!/^BEGIN:VCALENDAR\s*$/im.test(trimmed)) {
    return looksLikeHtml(trimmed) ? "got HTML" : "no BEGIN:VCALENDAR";
  }
  const lastLine = trimmed.slice(trimmed.lastIndexOf("\n") + 1);
  if (!/^END:VCALENDAR\s*$/i.test(lastLine)) return "truncated: no END:VCALENDAR at the end";
  return null;
}

/** node-ical warns on the console about feed quirks; the engine prints nothing, so hush it (sync code only). */
function quietly<T>(work: () => T): T {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return work();
  } finally {
    console.warn = warn;
  }
}

/** The VEVENTs (their zones were read from the text: zoned-times.ts). */
function componentsOf(parsed: Record<string, unknown>): VEvent[] {
  const components: VEvent[] = [];
  for (const component of Object.values(parsed)) {
    if ((component as { type?: unknown } | undefined)?.type === "VEVENT") components.push(component as VEvent);
  }
  return components;
}

function toFeedEvent(occurrence: Occurrence, source: CalendarSource): FeedEvent | null {
  const { event, start, end, allDay } = occurrence;
  if (!isValidDate(start) || (end !== undefined && !isValidDate(end))) return null;
  let startText: string;
  let endText: string;
  // A DTEND on or before DTSTART is read like a missing one (one night; an instant when timed): DTSTART
  // is what channels get right. Swapping could turn a typo into a long stay; dropping would cancel one.
  if (allDay) {
    startText = formatDate(start);
    const written = isValidDate(end) ? formatDate(end) : "";
    endText = written > startText ? written : formatDate(addLocalDays(start, 1));
  } else {
    startText = start.toISOString();
    endText = isValidDate(end) && end.getTime() >= start.getTime() ? end.toISOString() : startText;
  }

  // A feed's summary is shown on terminals and pages: one line without control characters.
  const summary = oneLineText(text(event.summary)).trim();
  const description = text(event.description);
  const uid = typeof event.uid === "string" && event.uid.trim() ? keptUid(event.uid.trim()) : undefined;
  const base = uid ?? `${NO_UID_PREFIX}${createHash("sha256").update(`${startText}|${endText}|${summary}`).digest("hex").slice(0, 32)}`;
  const identity = occurrence.recurrenceKey === undefined ? base : `${base}#${occurrence.recurrenceKey}`;
  const timedZone = allDay ? undefined : occurrence.zone;
  const { kind, details } = describeEvent(source, summary, description, text(event.url));

  // Field by field, not spread: see datedEvent.
  const feedEvent: FeedEvent = {
    uid: identity,
    kind,
    details,
    start: startText,
    end: endText,
    summary,
    cancelled: text(event.status).toUpperCase() === "CANCELLED",
    raw: rawOf(event),
  };
  if (timedZone) feedEvent.zone = timedZone;
  return feedEvent;
}

function isTransparent(event: Occurrence["event"]): boolean {
  return text(event.transparency).trim().toUpperCase() === "TRANSPARENT";
}

function rawOf(event: Partial<VEvent>): Record<string, string> {
  const raw: Record<string, string> = {};
  for (const [name, field] of RAW_FIELDS) {
    const value: unknown = event[field];
    if (value === undefined || value === null) continue;
    raw[name] = value instanceof Date ? (isValidDate(value) ? value.toISOString() : "") : text(value);
  }
  return raw;
}

/** A property's text: node-ical gives `{ val, params }` when the property had parameters. */
function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value && typeof value === "object" && "val" in value) return text((value as { val: unknown }).val);
  return "";
}

function isValidDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}
