// Wall clocks of named zones, never the machine's. node-ical reads a date-time whose zone it cannot
// place (a floating time, an unknown TZID) in the machine's own zone, so two machines would store two
// instants: re-read such wall times in the calendar's zone (X-WR-TIMEZONE) or else as UTC. And the
// calendar date an instant falls on in a zone (a stay's nights, "today" at a property).

const formats = new Map<string, Intl.DateTimeFormat | null>();

/** Intl's formatter for an IANA zone, or null when the name is not one (cached: feeds repeat zones). */
export function formatter(zone: string): Intl.DateTimeFormat | null {
  let format = formats.get(zone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      });
    } catch {
      format = null;
    }
    // Zone names come from feeds, in any case Intl accepts: remember a bounded number of spellings.
    if (formats.size >= 1000) formats.clear();
    formats.set(zone, format);
  }
  return format;
}

/** True when `zone` is an IANA zone name Intl knows (any case), or (with `offsets`) a numeric offset such as "+02:00". */
export function isTimeZone(zone: string, offsets = true): boolean {
  if (offsetMinutes(zone) !== null) return offsets;
  return formatter(zone) !== null;
}

/**
 * The `YYYY-MM-DD` date the wall clock of `zone` shows at `instant` (an IANA name or a numeric offset),
 * or null when `zone` is neither. Never depends on the machine's own zone.
 */
export function zoneDate(instant: Date, zone: string): string | null {
  const offset = offsetMinutes(zone);
  if (offset !== null) return new Date(instant.getTime() + offset * 60_000).toISOString().slice(0, 10);
  const format = formatter(zone);
  if (!format) return null;
  const ms = instant.getTime();
  // Intl is the dearest step of dating a stay (a few microseconds an instant, against a tenth of one):
  // within an hour whose offset does not change, the wall clock is the instant plus that offset.
  const hourly = ms >= 0 && ms < LAST_FOUR_DIGIT_YEAR ? hourOffset(format, ms) : null;
  if (hourly !== null) return new Date(ms + hourly).toISOString().slice(0, 10);
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(instant)) parts[part.type] = part.value;
  return `${(parts["year"] ?? "").padStart(4, "0")}-${(parts["month"] ?? "").padStart(2, "0")}-${(parts["day"] ?? "").padStart(2, "0")}`;
}

const HOUR_MS = 3_600_000;
/** 10000-01-01T00:00:00Z: past it `toISOString` writes six-digit years. */
const LAST_FOUR_DIGIT_YEAR = 253_402_300_800_000;
/** Hours remembered per zone (three years of them, about 60 bytes each). */
const MAX_HOURS = 26_304;
const hourOffsets = new Map<string, Map<number, number | null>>();

const hoursByFormat = new WeakMap<Intl.DateTimeFormat, Map<number, number | null>>();

/**
 * The hours remembered for `format`'s zone, under Intl's own name for it: every spelling of one zone shares
 * them, and there are only a few hundred zones, so `hourOffsets` stays bounded whatever the feeds write.
 */
function hoursOf(format: Intl.DateTimeFormat): Map<number, number | null> {
  let offsets = hoursByFormat.get(format);
  if (!offsets) {
    const zone = format.resolvedOptions().timeZone;
    offsets = hourOffsets.get(zone) ?? new Map<number, number | null>();
    hourOffsets.set(zone, offsets);
    hoursByFormat.set(format, offsets);
  }
  return offsets;
}

/**
 * How far the wall clock of `format`'s zone is ahead of UTC through the UTC hour holding `ms`, or null when the offset at the
 * hour's first and last second differ (a change of time inside it: read that instant with Intl). Remembered
 * per zone and hour; offsets change at most a few times a year, never twice within an hour.
 */
function hourOffset(format: Intl.DateTimeFormat, ms: number): number | null {
  const offsets = hoursOf(format);
  const hour = Math.floor(ms / HOUR_MS);
  let offset = offsets.get(hour);
  if (offset === undefined) {
    const start = hour * HOUR_MS;
    const first = offsetAt(format, start);
    offset = first === offsetAt(format, start + HOUR_MS - 1000) ? first : null;
    if (offsets.size >= MAX_HOURS) offsets.clear();
    offsets.set(hour, offset);
  }
  return offset;
}

/** Minutes a numeric offset zone ("+02:00", "UTC-5", "GMT+0530") is ahead of UTC; null for anything else. */
export function offsetMinutes(zone: string): number | null {
  let minutes = numericOffsets.get(zone);
  if (minutes === undefined) {
    minutes = readOffset(zone);
    // Zone names come from feeds: remember a bounded number of them.
    if (numericOffsets.size >= 1000) numericOffsets.clear();
    numericOffsets.set(zone, minutes);
  }
  return minutes;
}

const numericOffsets = new Map<string, number | null>();

function readOffset(zone: string): number | null {
  const match = /^(?:utc|gmt)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(zone.trim());
  if (!match) return null;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return minutes > 18 * 60 ? null : (match[1] === "-" ? -minutes : minutes);
}

/** The instant of a node-ical date-time, the same on every machine. `calendarZone` is X-WR-TIMEZONE. */
export function stableInstant(date: Date, calendarZone?: string): Date {
  const zone: unknown = (date as Date & { tz?: unknown }).tz;
  if (typeof zone === "string" && isTimeZone(zone)) return date;
  // Local getters give back the wall time exactly as written in the feed.
  const wall = Date.UTC(date.getFullYear(), date.getMonth(), date.getDate(), date.getHours(), date.getMinutes(), date.getSeconds());
  const format = calendarZone ? formatter(calendarZone) : null;
  if (!format) return new Date(wall);
  // The zone's offset at the guessed instant; a second pass lands on the right side of a DST change.
  let instant = wall - offsetAt(format, wall);
  instant = wall - offsetAt(format, instant);
  return new Date(instant);
}

/** How far the zone's wall clock is ahead of UTC at `instant`, in milliseconds. */
function offsetAt(format: Intl.DateTimeFormat, instant: number): number {
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(instant))) parts[part.type] = Number(part.value);
  const shown = Date.UTC(parts["year"] ?? 0, (parts["month"] ?? 1) - 1, parts["day"] ?? 1, parts["hour"] ?? 0, parts["minute"] ?? 0, parts["second"] ?? 0);
  return shown - Math.floor(instant / 1000) * 1000;
}
