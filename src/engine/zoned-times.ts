// node-ical reads a TZID its own way: the repeated hour as its second occurrence, a VTIMEZONE only under
// a few names (else the machine's zone or UTC), floating times in the machine's zone, and RDATE not at
// all. So before node-ical sees a feed, every date-time of a VEVENT (DTSTART, DTEND, RECURRENCE-ID,
// EXDATE, RDATE) is rewritten as the wall time of its series' zone written as if it were UTC: node-ical
// then expands rules on that wall clock exactly (UTC has no DST), on any machine. Each VEVENT says, in
// X-CALSYNC-* properties, which zone turns its wall times back into instants (recurrence.ts), the exact
// instant of its DTEND, and its RDATEs (a period's with the instant it ends). A UTC UNTIL of its RRULE is
// written on the same wall clock, so that it still names its instant.
import { feedZones, type FeedZones } from "./feed-zones.js";
import { instantToWall, UTC_ZONE, wallOf, wallToInstant, zoneLabel, type WallZone } from "./wall-zones.js";
import { contentLines, paramOf, unquote, type Line } from "./content-lines.js";
import { readPeriod } from "./rdate-periods.js";
import type { Observance } from "./zone-rules.js";

/** A VEVENT's wall clock: where its date-times are read, and the zone its nights are read in (none: UTC). */
export interface SeriesZone {
  zone: WallZone;
  /** Keep the calendar's zone name with the event (a UTC or floating time), rather than `zone`'s own. */
  calendarLabel: WallZone | null;
}

/** The rewritten body, and the zones its X-CALSYNC-ZONE keys name. */
export interface ZonedBody {
  body: string;
  zones: Map<string, SeriesZone>;
}

export const ZONE_KEY = "CALSYNC-ZONE";
export const DTEND_KEY = "CALSYNC-DTEND";
export const RDATE_KEY = "CALSYNC-RDATE";


/** Rewrites `body`'s VEVENT date-times onto their series' wall clocks (see the file's comment). */
export function zoneFeedTimes(body: string): ZonedBody {
  const lines = contentLines(body);
  const zones = readZones(lines);
  const seriesOf = seriesZones(lines, zones);
  const used = new Map<string, SeriesZone>();
  const keyOf = new Map<SeriesZone, string>();
  let out = "";
  let at = 0;
  let depth = 0;
  let inEvent = 0;
  let current: { zone: SeriesZone; rdates: string[]; rrules: string[]; timed: boolean; dtend?: string } | null = null;
  let index = -1;
  let read = 0;
  for (const line of lines) {
    if (line.name === "BEGIN") {
      depth++;
      if (!inEvent && line.value.trim().toUpperCase() === "VEVENT") {
        inEvent = depth;
        current = { zone: seriesOf[++index]!, rdates: [], rrules: [], timed: false };
      }
      continue;
    }
    if (line.name === "END") {
      if (inEvent && depth === inEvent && current) {
        let key = keyOf.get(current.zone);
        if (!key) {
          key = `z${keyOf.size}`;
          keyOf.set(current.zone, key);
          used.set(key, current.zone);
        }
        let extra = `X-${ZONE_KEY}:${key}\r\n`;
        if (current.dtend) extra += `X-${DTEND_KEY}:${current.dtend}\r\n`;
        if (current.rdates.length > 0) extra += `X-${RDATE_KEY}:${current.rdates.join(",")}\r\n`;
        for (const rule of current.rrules) extra += `RRULE:${current.timed ? untilOnWallClock(rule, current.zone.zone) : rule}\r\n`;
        out += body.slice(at, line.start) + extra;
        at = line.start;
        inEvent = 0;
        current = null;
      }
      depth--;
      continue;
    }
    if (line.name.startsWith("X-CALSYNC-")) {
      // A feed's own X-CALSYNC-* lines would pass for ours: they are cut out wherever they are.
      out += body.slice(at, line.start);
      at = line.end;
      continue;
    }
    if (current && depth === inEvent && line.name === "RRULE") {
      // Written again at END:VEVENT, when whether DTSTART is a date-time is known (it may come later).
      current.rrules.push(line.value.trim());
      out += body.slice(at, line.start);
      at = line.end;
      continue;
    }
    if (!current || depth !== inEvent || !DATED.has(line.name)) continue;
    if (line.name === "DTSTART") current.timed = wallOf(line.value.trim()) !== null;
    const zone = current.zone.zone;
    const tzid = paramOf(line.params, "TZID");
    const own = tzid === undefined ? undefined : (zones.named(tzid) ?? zones.calendar);
    const values: string[] = [];
    const ownClock = own ?? zones.calendar;
    const list = line.value.split(",");
    // Each value may need a zone's offsets read: a 10 MiB list of dates must fail fast, not hold the parser.
    if (line.name === "RDATE" || line.name === "EXDATE") read += list.length;
    if (read > MAX_DATE_VALUES) throw new Error(`feed holds more than ${MAX_DATE_VALUES} dates`);
    const period = line.name === "RDATE" && paramOf(line.params, "VALUE")?.toUpperCase() === "PERIOD";
    for (const raw of list) {
      let value = raw.trim();
      let ends = "";
      if (period) {
        // The period's start joins the series as a date-time does; the instant it ends goes beside it.
        const read = readPeriod(value, ownClock);
        if (!read) continue;
        value = read.start;
        ends = `/${new Date(read.end).toISOString()}`;
      }
      // The common case: a wall time on the series' own clock stays as written (a gap time too: the
      // rule's other dates keep it), so nothing needs reading but its form.
      const utc = value.endsWith("Z");
      if (line.name !== "DTEND" && (utc ? zone === UTC_CLOCK : ownClock === zone) && DATE_TIME.test(value) && wallOf(value) !== null) {
        values.push((utc ? value : `${value}Z`) + ends);
        continue;
      }
      const wall = wallOf(value);
      if (wall === null) {
        // A DATE stays as written; anything unreadable is left out (DTSTART/DTEND were checked before).
        if (/^\d{8}$/.test(value)) values.push(value);
        continue;
      }
      const clock = utc ? UTC_CLOCK : ownClock;
      const instant = utc ? wall : wallToInstant(wall, clock);
      if (line.name === "DTEND") current.dtend = new Date(instant).toISOString();
      values.push(pseudo(clock === zone ? wall : instantToWall(instant, zone)) + ends);
    }
    if (line.name === "RDATE") {
      // Dates, date-times and periods (a date-time with its end's instant after a slash) join the series.
      current.rdates.push(...values);
      out += body.slice(at, line.start);
      at = line.end;
      continue;
    }
    if (values.length === 0) continue;
    const kept = line.params.filter((param) => !/^TZID=/i.test(param));
    out += body.slice(at, line.start) + `${line.name}${kept.map((p) => `;${p}`).join("")}:${values.join(",")}\r\n`;
    at = line.end;
  }
  return { body: out + body.slice(at), zones: used };
}

/** Most RDATE and EXDATE values one feed may hold: twice the expansion limit's occurrences. */
const MAX_DATE_VALUES = 100_000;
const DATE_TIME = /^\d{8}T\d{6}Z?$/;
const DATED = new Set(["DTSTART", "DTEND", "RECURRENCE-ID", "EXDATE", "RDATE"]);

/**
 * A rule whose UNTIL is in UTC (`…T125959Z`, as Google Calendar writes it) with that instant written on the
 * series' wall clock: the rule is expanded there, and UNTIL is an instant compared with each occurrence's
 * instant, inclusive (RFC 5545 §3.3.10). A floating UNTIL is already a wall time of that clock.
 */
function untilOnWallClock(rule: string, zone: WallZone): string {
  if (zone === UTC_CLOCK) return rule;
  return rule.replace(/(^|;)UNTIL=(\d{8}T\d{6}Z)(?=;|$)/, (whole, before: string, until: string) => {
    const instant = wallOf(until);
    return instant === null ? whole : `${before}UNTIL=${pseudo(instantToWall(instant, zone))}`;
  });
}

/** A wall time written as a UTC date-time (`20270424T210000Z`). */
function pseudo(wall: number): string {
  const iso = new Date(wall).toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
}

/** The VTIMEZONE definitions and X-WR-TIMEZONE of the feed. */
function readZones(lines: Line[]): FeedZones {
  const definitions = new Map<string, Observance[]>();
  let calendarName: string | undefined;
  let tzid: string | undefined;
  let observances: Observance[] | null = null;
  let observance: Partial<Observance> | null = null;
  const stack: string[] = [];
  for (const line of lines) {
    if (line.name === "BEGIN") {
      const type = line.value.trim().toUpperCase();
      stack.push(type);
      if (type === "VTIMEZONE") [tzid, observances] = [undefined, []];
      else if (observances && (type === "STANDARD" || type === "DAYLIGHT")) observance = { dates: [] };
    } else if (line.name === "END") {
      const type = stack.pop();
      if (type === "VTIMEZONE" && observances) {
        if (tzid !== undefined && !definitions.has(tzid)) definitions.set(tzid, observances);
        observances = null;
      } else if (observance && observances && (type === "STANDARD" || type === "DAYLIGHT")) {
        const { start, from, to } = observance;
        if (start !== undefined && from !== undefined && to !== undefined) observances.push({ start, from, to, rule: observance.rule, dates: observance.dates ?? [] });
        observance = null;
      }
    } else if (observance) {
      if (line.name === "DTSTART") observance.start = wallOf(line.value.trim()) ?? undefined;
      else if (line.name === "TZOFFSETFROM") observance.from = offsetOf(line.value);
      else if (line.name === "TZOFFSETTO") observance.to = offsetOf(line.value);
      else if (line.name === "RRULE") observance.rule = line.value.trim();
      else if (line.name === "RDATE") for (const value of line.value.split(",")) observance.dates!.push(...nonNull(wallOf(value.trim())));
    } else if (observances && line.name === "TZID") tzid = unquote(line.value.trim());
    else if (stack.length === 1 && line.name === "X-WR-TIMEZONE") calendarName ??= unquote(line.value.trim()) || undefined;
  }
  return feedZones(definitions, calendarName);
}

/**
 * Each VEVENT's wall clock, in body order: that of its UID's series (the VEVENT without RECURRENCE-ID),
 * so that an override and its series name one occurrence alike; an event without UID, its own DTSTART's.
 */
function seriesZones(lines: Line[], zones: FeedZones): SeriesZone[] {
  const own: Array<{ uid?: string; override: boolean; zone: SeriesZone }> = [];
  let depth = 0;
  let inEvent = 0;
  let event: { uid?: string; override: boolean; dtstart?: Line } | null = null;
  for (const line of lines) {
    if (line.name === "BEGIN") {
      depth++;
      if (!inEvent && line.value.trim().toUpperCase() === "VEVENT") [inEvent, event] = [depth, { override: false }];
    } else if (line.name === "END") {
      if (inEvent && depth === inEvent && event) {
        own.push({ uid: event.uid, override: event.override, zone: startZone(event.dtstart, zones) });
        [inEvent, event] = [0, null];
      }
      depth--;
    } else if (event && depth === inEvent) {
      if (line.name === "UID") event.uid = line.value.trim();
      else if (line.name === "RECURRENCE-ID") event.override = true;
      else if (line.name === "DTSTART") event.dtstart ??= line;
    }
  }
  const series = new Map<string, SeriesZone>();
  for (const entry of own) if (entry.uid !== undefined && !entry.override && !series.has(entry.uid)) series.set(entry.uid, entry.zone);
  return own.map((entry) => (entry.uid !== undefined && series.get(entry.uid)) || entry.zone);
}

/**
 * The clock of a DTSTART: its TZID's zone; a UTC time UTC; a floating time (or an unknown TZID) the
 * calendar's. The nights of a UTC or floating time are read in the calendar's zone when it names one.
 * One object per clock (cached on `zones`), so the body names few keys.
 */
function startZone(dtstart: Line | undefined, zones: FeedZones): SeriesZone {
  const clocks = (zones as FeedZones & { clocks?: Map<WallZone, SeriesZone> }).clocks ??= new Map();
  const tzid = dtstart ? paramOf(dtstart.params, "TZID") : undefined;
  const named = tzid === undefined ? undefined : zones.named(tzid);
  const utc = !named && dtstart !== undefined && dtstart.value.trim().endsWith("Z");
  const zone = named ?? (utc ? UTC_CLOCK : zones.calendar);
  let clock = clocks.get(zone);
  if (!clock) clocks.set(zone, (clock = { zone, calendarLabel: named || !zones.calendarNamed ? null : zones.calendar }));
  return clock;
}

const UTC_CLOCK: WallZone = { offsetAt: () => 0, name: null };

/** The zone kept with a timed event of this clock from `start` to `end` (FeedEvent.zone); undefined: UTC. */
export function seriesLabel(series: SeriesZone, start: number, end = start): string | undefined {
  const zone = series.calendarLabel ?? series.zone;
  return zone === UTC_CLOCK || zone === UTC_ZONE ? undefined : zoneLabel(zone, start, end);
}

function offsetOf(value: string): number | undefined {
  const match = /^([+-])(\d{2})(\d{2})(\d{2})?$/.exec(value.trim());
  if (!match) return undefined;
  const minutes = Number(match[2]) * 60 + Number(match[3]) + Number(match[4] ?? 0) / 60;
  return match[1] === "-" ? -minutes : minutes;
}

function nonNull<T>(value: T | null): T[] {
  return value === null ? [] : [value];
}
