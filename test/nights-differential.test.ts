// Differential test (issue 24): calsync's stored instants and nights against an independent iCalendar
// implementation, Mozilla's ical.js, for generated feeds: all-day and timed events, TZID with and
// without VTIMEZONE, invented VTIMEZONE names, RRULE/RDATE (PERIOD too)/EXDATE/RECURRENCE-ID, DST-change days in
// several zones, floating and UTC times, with and without a property zone. vitest.config.ts runs this
// file again under TZ=Pacific/Auckland and TZ=America/Los_Angeles: the machine's zone must change nothing.
//
// ical.js expands the series and reads each zone's offsets; the oracle then applies RFC 5545 and
// CONTRACT §4/§8 on top:
// - A wall time is turned into an instant the RFC 5545 §3.3.5 way: the repeated hour is its first
//   occurrence, a time in the gap keeps the offset before the gap. ical.js disagrees inside a VTIMEZONE
//   (it reads the repeated 02:30 as the second one and a gap time with the offset after the gap): here
//   the RFC wins, using ical.js's offsets either side of the change.
// - An occurrence lasts exactly as long as its component (RFC 5545 §3.8.5.3, "the same exact duration");
//   ical.js adds that duration to the wall clock instead, an hour off across a change.
// - DTSTART is always the first instance of the set (RFC 5545 §3.8.5.2); ical.js drops it when a series has
//   RDATE but no RRULE.
// - EXDATE removes an RDATE too (RFC 5545 §3.8.5.1); ical.js keeps it.
// - An RDATE period's occurrence ends at the period's end (RFC 5545 §3.8.5.2), a duration's days nominal
//   and its time exact (§3.3.6); ical.js parses the periods, but its iterator cannot take them.
// - An UNTIL in UTC is an instant compared with each occurrence's instant, inclusive (RFC 5545 §3.3.10).
//   ical.js compares its own instant of the occurrence, which differs from the RFC's inside a fold or a
//   gap: the oracle expands the rule by COUNT and applies UNTIL itself, on the RFC instants.
// - A DURATION's days are nominal (added on the wall clock) and its hours, minutes and seconds exact
//   (§3.3.6), the same nominal duration for every occurrence (§3.8.5.3); ical.js adds all of it to the
//   wall clock, an hour off across a change.
// - Names, parameter names and enumerated values are case-insensitive and a line may be folded between
//   any two characters (§3.1): feeds are also written in lower case and folded inside names. ical.js
//   reads those as the RFC says, but for an RRULE's values (`freq=daily`: "invalid frequency"): its
//   copy of the feed keeps those in upper case.
// - Floating times are read in X-WR-TIMEZONE, else UTC (CONTRACT §8).
// - Nights are the local dates in the property's zone, else the event's own zone; an event zone that
//   only a VTIMEZONE with an invented name defines is kept as its offset at the start (docs/syncing.md).
// - A timed event whose start and end fall on the same local date takes no night: not stored (§4).
import fc from "fast-check";
import ICAL from "ical.js";
import { describe, expect, it } from "vitest";
import { diffReservations } from "../src/engine/diff.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import { fixedZone, intlZone, wallToInstant } from "../src/engine/wall-zones.js";
import { CHANGE_DAYS, vtimezone } from "./helpers/vtimezones.js";

const NOW = new Date("2027-01-15T12:00:00Z");
const MINUTE = 60_000;
const DAY = 86_400_000;

type Mode = "all-day" | "tzid" | "vtimezone" | "invented" | "utc" | "floating";
interface Spec {
  mode: Mode;
  zone: string;
  /** The zone name written in TZID (invented names for "invented", a Windows name sometimes for "tzid"). */
  tzid: string;
  /** Wall time of DTSTART (fields as UTC). */
  start: number;
  minutes: number;
  freq: "DAILY" | "WEEKLY" | "YEARLY" | null;
  count: number;
  rdates: number[];
  /** RDATE;VALUE=PERIOD values: start wall time, and its end written as a date-time or as a duration. */
  periods: Array<{ start: number; days: number; minutes: number; form: "end" | "duration" }>;
  exdate: number | null;
  override: { index: number; shift: number; minutes: number } | null;
  /** The rule ends by an UNTIL in UTC this many ms from the instant of its last (COUNT-th) occurrence, not by COUNT. */
  until: number | null;
  /** The length is written as a DURATION: all exact (`PT…M`) or days nominal (`P…DT…M`). */
  duration: "exact" | "nominal" | null;
}
interface Feed {
  events: Spec[];
  /** The text is also written with lower-case names and enumerations, and folded inside names (seeded). */
  mangle: { lower: boolean; folds: boolean; seed: number };
  calendarZone: string | null;
  propertyZone: string | null;
}

const IANA = ["Europe/Berlin", "America/New_York", "America/St_Johns", "Australia/Sydney", "Asia/Kolkata"];
const INVENTED = ["Customized Time Zone", "Custom Fixed -0330", "Central Europe (custom)", "Pacific Standard Time 1"];
const PROPERTY_ZONES = [null, "Europe/Berlin", "America/Los_Angeles", "Pacific/Auckland", "Asia/Kolkata", "America/St_Johns"];

const dayArb = fc.oneof(
  fc.constantFrom(...Object.values(CHANGE_DAYS).flat()),
  fc.integer({ min: 20, max: 340 }).map((n) => new Date(Date.UTC(2027, 0, 1) + n * DAY).toISOString().slice(0, 10)),
);
const timeArb = fc.oneof(
  fc.constantFrom(0, 60, 90, 120, 150, 180, 210, 23 * 60 + 30),
  fc.integer({ min: 0, max: 47 }).map((n) => n * 30),
);
const minutesArb = fc.oneof(fc.integer({ min: 0, max: 160 }).map((n) => n * 30), fc.constant(-1)); // -1: to the next midnight

const specArb: fc.Arbitrary<Spec> = fc
  .record({
    mode: fc.constantFrom<Mode>("all-day", "tzid", "vtimezone", "invented", "utc", "floating"),
    zone: fc.constantFrom(...IANA, "Fixed -0330"),
    invented: fc.constantFrom(...INVENTED),
    windows: fc.boolean(),
    day: dayArb,
    time: timeArb,
    minutes: minutesArb,
    freq: fc.constantFrom(null, "DAILY", "WEEKLY", "YEARLY"),
    count: fc.integer({ min: 1, max: 4 }),
    rdates: fc.array(fc.tuple(fc.integer({ min: 2, max: 60 }), fc.constantFrom(0, 60, 150, 600)), { maxLength: 2 }),
    periods: fc.array(
      fc.record({ days: fc.integer({ min: 1, max: 60 }), at: fc.constantFrom(0, 60, 150, 600), length: fc.integer({ min: 0, max: 3 }), minutes: fc.constantFrom(30, 90, 600, 1440), form: fc.constantFrom<"end" | "duration">("end", "duration") }),
      { maxLength: 2 },
    ),
    exdate: fc.option(fc.nat({ max: 3 }), { nil: null }),
    override: fc.option(fc.record({ index: fc.nat({ max: 3 }), shift: fc.integer({ min: -30, max: 30 }).map((n) => n * 60), minutes: fc.integer({ min: 0, max: 100 }).map((n) => n * 60) }), { nil: null }),
    until: fc.option(fc.constantFrom(0, -1000, 1000, -2 * 3_600_000, 2 * 3_600_000), { nil: null }),
    duration: fc.constantFrom<"exact" | "nominal" | null>(null, null, "exact", "nominal"),
  })
  .map(({ mode, zone, invented, windows, day, time, minutes, freq, count, rdates, periods, exdate, override, until, duration }) => {
    // Only a VTIMEZONE can name "Fixed -0330"; Windows names stand for Berlin ("W. Europe Standard Time").
    const needsDefinition = zone === "Fixed -0330" && (mode === "tzid" || mode === "vtimezone");
    const realMode: Mode = needsDefinition ? "invented" : mode;
    const tzid = realMode === "invented" ? invented : realMode === "tzid" && windows && zone === "Europe/Berlin" ? "W. Europe Standard Time" : zone;
    const allDay = realMode === "all-day";
    const start = Date.parse(`${day}T00:00:00Z`) + (allDay ? 0 : time * MINUTE);
    const count2 = freq === "YEARLY" ? Math.min(count, 2) : count;
    return {
      mode: realMode,
      zone,
      tzid,
      start,
      minutes: allDay ? Math.max(1, Math.ceil(Math.max(minutes, 1440) / 1440)) * 1440 : minutes,
      freq,
      count: count2,
      rdates: rdates.map(([days, at]) => Date.parse(`${day}T00:00:00Z`) + days * DAY + (allDay ? 0 : at * MINUTE)),
      // A period's start is a date-time: none in an all-day series.
      periods: allDay ? [] : periods.map((p) => ({ start: Date.parse(`${day}T00:00:00Z`) + p.days * DAY + p.at * MINUTE, days: p.length, minutes: p.minutes, form: p.form })),
      exdate: freq && exdate !== null && exdate < count2 ? exdate : null,
      override: freq && override && override.index < count2 && override.index !== exdate ? override : null,
      // UNTIL in UTC belongs to a timed series with a zone (a floating or all-day one writes it floating or as a DATE).
      // An UNTIL before DTSTART, or one that drops an overridden occurrence, is no question of reading.
      until: freq && !allDay && realMode !== "floating" && !(until! < 0 && (count2 === 1 || override?.index === count2 - 1)) ? until : null,
      duration: allDay || minutes < 0 ? null : duration,
    };
  });

const feedArb: fc.Arbitrary<Feed> = fc
  .record({
    events: fc.array(specArb, { minLength: 1, maxLength: 3 }),
    calendarZone: fc.constantFrom(null, ...IANA),
    propertyZone: fc.constantFrom(...PROPERTY_ZONES),
    mangle: fc.record({ lower: fc.boolean(), folds: fc.boolean(), seed: fc.integer() }),
  })
  .map((feed) => {
    // One VTIMEZONE per name in a feed: an invented name keeps the zone it first stood for.
    const zones = new Map<string, string>();
    for (const spec of feed.events) if (spec.mode === "invented" && !zones.has(spec.tzid)) zones.set(spec.tzid, spec.zone);
    return { ...feed, events: feed.events.map((spec) => (spec.mode === "invented" ? { ...spec, zone: zones.get(spec.tzid)! } : spec)) };
  });

/** The wall time of occurrence `index` of the series (fields as UTC). */
function nth(spec: Spec, index: number): number {
  const date = new Date(spec.start);
  if (spec.freq === "DAILY") date.setUTCDate(date.getUTCDate() + index);
  if (spec.freq === "WEEKLY") date.setUTCDate(date.getUTCDate() + 7 * index);
  if (spec.freq === "YEARLY") date.setUTCFullYear(date.getUTCFullYear() + index);
  return date.getTime();
}

function endWall(spec: Spec, start: number, minutes = spec.minutes): number {
  // -1: the next midnight (00:00 → 00:00 is one night; 10:00 → 00:00 the night of the 10th).
  return minutes < 0 ? Math.floor(start / DAY) * DAY + DAY : start + minutes * MINUTE;
}

function value(spec: Spec, wall: number): string {
  const iso = new Date(wall).toISOString();
  const date = iso.slice(0, 10).replaceAll("-", "");
  if (spec.mode === "all-day") return date;
  return `${date}T${iso.slice(11, 19).replaceAll(":", "")}${spec.mode === "utc" ? "Z" : ""}`;
}

function params(spec: Spec): string {
  return spec.mode === "all-day" ? ";VALUE=DATE" : ["tzid", "vtimezone", "invented"].includes(spec.mode) ? `;TZID="${spec.tzid}"` : "";
}

function property(spec: Spec, name: string, values: number[]): string {
  return `${name}${params(spec)}:${values.map((wall) => value(spec, wall)).join(",")}`;
}

/** The feed's text; `forIcalJs`: with RRULE values in upper case (see the file's comment). */
function buildFeed(feed: Feed, forIcalJs = false): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calsync//differential//EN"];
  if (feed.calendarZone) lines.push(`X-WR-TIMEZONE:${feed.calendarZone}`);
  const defined = new Set<string>();
  for (const spec of feed.events) {
    if ((spec.mode === "vtimezone" || spec.mode === "invented") && !defined.has(spec.tzid)) {
      defined.add(spec.tzid);
      lines.push(...vtimezone(spec.zone, spec.tzid));
    }
  }
  feed.events.forEach((spec, at) => {
    const uid = `e${at}`;
    lines.push("BEGIN:VEVENT", `UID:${uid}`, "DTSTAMP:20270101T000000Z", property(spec, "DTSTART", [spec.start]));
    lines.push(spec.duration ? `DURATION:${durationText(spec)}` : property(spec, "DTEND", [endWall(spec, spec.start)]), "SUMMARY:Reserved");
    if (spec.freq) lines.push(`RRULE:FREQ=${spec.freq};${spec.until === null ? `COUNT=${spec.count}` : `UNTIL=${utcText(untilOf(spec))}`}`);
    if (spec.rdates.length > 0) lines.push(property(spec, "RDATE", spec.rdates));
    if (spec.periods.length > 0) {
      const periods = spec.periods.map((p) => `${value(spec, p.start)}/${p.form === "end" ? value(spec, p.start + p.days * DAY + p.minutes * MINUTE) : `P${p.days}DT${p.minutes}M`}`);
      lines.push(`RDATE;VALUE=PERIOD${params(spec)}:${periods.join(",")}`);
    }
    if (spec.exdate !== null) lines.push(property(spec, "EXDATE", [nth(spec, spec.exdate)]));
    lines.push("END:VEVENT");
    if (spec.override) {
      const original = nth(spec, spec.override.index);
      const moved = spec.mode === "all-day" ? original + Math.round(spec.override.shift / 1440) * DAY : original + spec.override.shift * MINUTE;
      const minutes = spec.mode === "all-day" ? spec.minutes : spec.override.minutes;
      lines.push("BEGIN:VEVENT", `UID:${uid}`, "DTSTAMP:20270101T000000Z", property(spec, "RECURRENCE-ID", [original]));
      lines.push(property(spec, "DTSTART", [moved]), property(spec, "DTEND", [endWall(spec, moved, minutes)]), "SUMMARY:Reserved (moved)", "END:VEVENT");
    }
  });
  lines.push("END:VCALENDAR");
  return `${mangled(lines, feed.mangle, forIcalJs).join("\r\n")}\r\n`;
}

/** `PT…M`, or `P…DT…M` (whole days nominal, the rest exact): the spec's length either way. */
function durationText(spec: Spec): string {
  if (spec.duration === "exact") return `PT${spec.minutes}M`;
  return `P${Math.floor(spec.minutes / 1440)}DT${spec.minutes % 1440}M`;
}

/** The instant of a wall time of the spec's zone (generating input only: the oracle reads ical.js's offsets). */
function instantOfWall(spec: Spec, wall: number): number {
  if (spec.mode === "utc") return wall;
  return wallToInstant(wall, intlZone(spec.zone) ?? fixedZone(-210));
}

/** The UNTIL instant of a spec: its last occurrence's instant moved by `until`. */
function untilOf(spec: Spec): number {
  return instantOfWall(spec, nth(spec, spec.count - 1)) + spec.until!;
}

function utcText(instant: number): string {
  return new Date(instant).toISOString().replace(/[-:]|\.\d{3}/g, "");
}

/** Some lines in lower case (names, parameter names, enumerated values) and some folded inside, by seed. */
function mangled(lines: string[], mangle: Feed["mangle"], upperRules: boolean): string[] {
  let state = mangle.seed >>> 0 || 1;
  const random = () => ((state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);
  return lines.map((line) => {
    let out = line;
    if (mangle.lower && random() < 0.5) {
      const colon = out.indexOf(":");
      const name = out.slice(0, out.search(/[;:]/));
      const head = out.slice(0, colon).replace(/(^|;)([A-Z-]+)(?==|;|$)/g, (_m, before: string, word: string) => before + word.toLowerCase()).replace(/(;value=)([A-Z-]+)/, (_m, p: string, v: string) => p + v.toLowerCase());
      const lower = name === "RRULE" ? !upperRules : name === "BEGIN" || name === "END";
      const value = lower ? out.slice(colon + 1).toLowerCase() : out.slice(colon + 1);
      out = `${head}:${value}`;
    }
    if (mangle.folds && out.length > 1 && random() < 0.5) {
      const at = 1 + Math.floor(random() * (out.length - 1));
      out = `${out.slice(0, at)}\r\n${random() < 0.5 ? " " : "\t"}${out.slice(at)}`;
    }
    return out;
  });
}

interface Stay {
  start: string;
  end: string;
  arrival: string;
  departure: string;
}

/** calsync: parse, then what a first sync would store. */
function calsync(feed: Feed, text: string): Map<string, Stay> {
  const parsed = parseFeed(text, { source: "other", now: NOW });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const diff = diffReservations([], parsed.events, { now: NOW, timeZone: feed.propertyZone });
  expect(diff.counts.found).toBe(diff.inserts.length);
  return new Map(diff.inserts.map((row) => [row.uid, { start: row.start, end: row.end, arrival: row.arrival, departure: row.departure }]));
}

/** ical.js's zones: every definition registered under every name the feed uses. */
function oracleZone(name: string, zone: string): ICAL.Timezone {
  const key = `${name}|${zone}`;
  const cached = oracleZones.get(key);
  if (cached) {
    ICAL.TimezoneService.register(cached, name);
    return cached;
  }
  const component = new ICAL.Component(ICAL.parse(["BEGIN:VCALENDAR", ...vtimezone(zone, name), "END:VCALENDAR"].join("\r\n")));
  const timezone = new ICAL.Timezone(component.getFirstSubcomponent("vtimezone")!);
  ICAL.TimezoneService.register(timezone, name);
  oracleZones.set(key, timezone);
  return timezone;
}

const oracleZones = new Map<string, ICAL.Timezone>();

/**
 * The offset (ms) ical.js's `zone` shows at `instant`, from the changes ical.js expands out of the VTIMEZONE
 * (kept in UTC). Not `convertToZone`: it looks the offset up with the UTC fields read as local ones, hours
 * off around a change.
 */
function offsetAt(zone: ICAL.Timezone, instant: number): number {
  const internal = zone as unknown as { _ensureCoverage(year: number): void; changes: Array<Record<string, number>> };
  internal._ensureCoverage(new Date(instant).getUTCFullYear() + 1);
  let offset: number | undefined;
  for (const change of internal.changes) {
    const at = Date.UTC(change["year"]!, change["month"]! - 1, change["day"]!, change["hour"]!, change["minute"]!, change["second"]!);
    if (at > instant) break;
    offset = change["utcOffset"]!;
  }
  return (offset ?? internal.changes[0]?.["prevUtcOffset"] ?? 0) * 1000;
}

/** RFC 5545 §3.3.5 on ical.js's offsets: the repeated hour's first occurrence; in a gap, the offset before it. */
function rfcInstant(wall: number, zone: ICAL.Timezone | null): number {
  if (!zone) return wall;
  const before = offsetAt(zone, wall - DAY);
  const after = offsetAt(zone, wall + DAY);
  const fits = [before, after].filter((offset) => offsetAt(zone, wall - offset) === offset).map((offset) => wall - offset);
  return fits.length > 0 ? Math.min(...fits) : wall - before;
}

function wallOf(time: ICAL.Time): number {
  return Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
}

function localDate(instant: number, zone: string | null, fallback: (instant: number) => string): string {
  if (!zone) return fallback(instant);
  const parts = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(instant));
  return parts;
}

/** ical.js, then RFC 5545 and CONTRACT §4/§8 (see the file's comment). */
function oracle(feed: Feed, text: string): Map<string, Stay> {
  const calendarZone = feed.calendarZone ? oracleZone(feed.calendarZone, feed.calendarZone) : null;
  for (const spec of feed.events) if (spec.mode !== "all-day" && spec.mode !== "utc" && spec.mode !== "floating") oracleZone(spec.tzid, spec.zone);
  const root = new ICAL.Component(ICAL.parse(text));
  const vevents = root.getAllSubcomponents("vevent");
  const stays = new Map<string, Stay>();
  feed.events.forEach((spec, at) => {
    const uid = `e${at}`;
    const [master, ...exceptions] = vevents.filter((v) => v.getFirstPropertyValue("uid") === uid);
    const allDay = spec.mode === "all-day";
    const zone = spec.mode === "floating" ? calendarZone : spec.mode === "utc" || allDay ? null : ICAL.TimezoneService.get(spec.tzid)!;
    const instant = (time: ICAL.Time) => rfcInstant(wallOf(time), zone);
    // ical.js's iterator cannot take a period (getOccurrenceDetails throws): read them, then expand without them.
    const periods = master!.getAllProperties("rdate").filter((p) => p.type === "period");
    for (const p of periods) master!.removeProperty(p);
    const periodEnds = periods.flatMap((p) => p.getValues() as ICAL.Period[]).flatMap((period) => {
      const start = instant(period.start);
      const d = period.duration;
      const end = period.end ? instant(period.end)
        : rfcInstant(wallOf(period.start) + (d.weeks * 7 + d.days) * DAY, zone) + ((d.hours * 60 + d.minutes) * 60 + d.seconds) * 1000;
      // RFC 5545 §3.3.9: the end must be after the start; calsync leaves such a period out.
      return end > start ? [{ period, start, end }] : [];
    });
    // UNTIL in UTC: expanded by COUNT (the generator's last occurrence) and applied below on RFC instants.
    const rrule = master!.getFirstProperty("rrule");
    const until = (rrule?.getFirstValue() as ICAL.Recur | undefined)?.until;
    const untilMs = until ? until.toUnixTime() * 1000 : null;
    if (rrule && untilMs !== null) rrule.setValue(ICAL.Recur.fromString(`FREQ=${spec.freq};COUNT=${spec.count}`));
    const event = new ICAL.Event(master!, { exceptions });
    // How long an item lasts from `start`: a DURATION's days on the wall clock and the rest exact, else exactly its own length.
    const lengthAt = (item: ICAL.Event, start: ICAL.Time) => {
      if (!item.component.hasProperty("duration")) return instant(item.endDate) - instant(item.startDate);
      const d = item.duration;
      const sign = d.isNegative ? -1 : 1;
      const nominal = rfcInstant(wallOf(start) + sign * (d.weeks * 7 + d.days) * DAY, zone);
      return nominal + sign * ((d.hours * 60 + d.minutes) * 60 + d.seconds) * 1000 - instant(start);
    };
    // Nights: the property's zone, else the event's own (an invented name: its offset at the start), else X-WR-TIMEZONE, else UTC.
    const eventZone = (start: number): ((ms: number) => string) => {
      if (spec.mode === "invented") {
        const offset = offsetAt(zone!, start);
        return (ms) => new Date(ms + offset).toISOString().slice(0, 10);
      }
      const named = spec.mode === "utc" || spec.mode === "floating" ? feed.calendarZone : spec.zone;
      return (ms) => localDate(ms, named, (x) => new Date(x).toISOString().slice(0, 10));
    };
    // Every key of the set, stored or not (a timed occurrence within one local date takes no night).
    const taken = new Set<string>();
    const add = (key: string, startTime: ICAL.Time, endTime: ICAL.Time | null, exact: number | null) => {
      taken.add(key);
      if (allDay) {
        const arrival = startTime.toString().slice(0, 10);
        const departure = endTime!.toString().slice(0, 10);
        stays.set(key, { start: arrival, end: departure, arrival, departure });
        return;
      }
      const start = instant(startTime);
      const end = exact === null ? instant(endTime!) : start + exact;
      const fallback = eventZone(start);
      const arrival = localDate(start, feed.propertyZone, fallback);
      const departure = localDate(end, feed.propertyZone, fallback);
      // A timed event within one local date takes no night (CONTRACT §4).
      if (departure <= arrival) return;
      stays.set(key, { start: new Date(start).toISOString(), end: new Date(end).toISOString(), arrival, departure });
    };
    if (!event.isRecurring() && periodEnds.length === 0) {
      add(uid, event.startDate, event.endDate, lengthAt(event, event.startDate));
      return;
    }
    // RFC 5545 §3.8.5.2: DTSTART is the first instance of the set. ical.js leaves it out of a series that
    // has RDATE but no RRULE; the RFC wins.
    if (!spec.freq) {
      const key = allDay ? event.startDate.toString().slice(0, 10) : new Date(instant(event.startDate)).toISOString();
      add(`${uid}#${key}`, event.startDate, event.endDate, lengthAt(event, event.startDate));
    }
    // RFC 5545 §3.8.5.1: EXDATE removes a date whether RRULE or RDATE gave it; ical.js keeps an RDATE it names.
    const exdates = new Set(master!.getAllProperties("exdate").flatMap((p) => p.getValues().map((t) => (t as ICAL.Time).toString())));
    const rdates = new Set(master!.getAllProperties("rdate").flatMap((p) => p.getValues().map((t) => (t as ICAL.Time).toString())));
    const iterator = event.iterator();
    for (let next = event.isRecurring() ? iterator.next() : null; next; next = iterator.next()) {
      if (exdates.has(next.toString())) continue;
      // UNTIL ends the rule; an RDATE joins the set whatever it says (RFC 5545 §3.8.5.2).
      if (untilMs !== null && instant(next) > untilMs && !rdates.has(next.toString())) continue;
      const details = event.getOccurrenceDetails(next);
      const key = allDay ? details.recurrenceId.toString().slice(0, 10) : new Date(instant(details.recurrenceId)).toISOString();
      const overridden = details.item !== event;
      if (allDay && !overridden) {
        const days = Math.round((wallOf(event.endDate) - wallOf(event.startDate)) / DAY);
        const arrival = details.startDate.toString().slice(0, 10);
        const departure = new Date(wallOf(details.startDate) + days * DAY).toISOString().slice(0, 10);
        stays.set(`${uid}#${key}`, { start: arrival, end: departure, arrival, departure });
      } else add(`${uid}#${key}`, details.startDate, overridden ? details.item.endDate : null, overridden ? lengthAt(details.item, details.item.startDate) : lengthAt(event, details.startDate));
    }
    // A period at a date the set already has is that date again (RFC 5545 §3.8.5.2: duplicates are ignored).
    for (const { period, start, end } of periodEnds) {
      const key = `${uid}#${new Date(start).toISOString()}`;
      if (exdates.has(period.start.toString()) || taken.has(key)) continue;
      add(key, period.start, null, end - start);
    }
  });
  return stays;
}

describe(`iCalendar read exactly, against ical.js (machine TZ=${process.env["TZ"] ?? "unset"})`, () => {
  it("stores the instants and nights ical.js and RFC 5545 give, for generated feeds", () => {
    fc.assert(
      fc.property(feedArb, (feed) => {
        expect(Object.fromEntries(calsync(feed, buildFeed(feed)))).toEqual(Object.fromEntries(oracle(feed, buildFeed(feed, true))));
      }),
      // Moderate: the suite runs on two cores, under three machine zones, three times in CI.
      { numRuns: 60 },
    );
  });
});
