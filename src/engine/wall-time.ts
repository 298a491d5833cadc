// Wall clocks of named zones, never the machine's. node-ical reads a date-time whose zone it cannot
// place (a floating time, an unknown TZID) in the machine's own zone, so two machines would store two
// instants: re-read such wall times in the calendar's zone (X-WR-TIMEZONE) or else as UTC. And the
// calendar date an instant falls on in a zone (a stay's nights, "today" at a property).

const formats = new Map<string, Intl.DateTimeFormat | null>();

/** Intl's formatter for an IANA zone, or null when the name is not one (cached: feeds repeat zones). */
function formatter(zone: string): Intl.DateTimeFormat | null {
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
  // The same instants come back (a stay is dated by echo detection, the diff and the store; a feed is read
  // again each day), and Intl is the dearest step of dating one: remember the answers, a bounded number.
  let known = zoneDates.get(zone);
  if (!known) zoneDates.set(zone, (known = new Map()));
  const ms = instant.getTime();
  const cached = known.get(ms);
  if (cached !== undefined) return cached;
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(instant)) parts[part.type] = part.value;
  const date = `${(parts["year"] ?? "").padStart(4, "0")}-${(parts["month"] ?? "").padStart(2, "0")}-${(parts["day"] ?? "").padStart(2, "0")}`;
  if (known.size >= MAX_REMEMBERED_DATES) known.clear();
  known.set(ms, date);
  return date;
}

/** Dates remembered per zone by `zoneDate` (about 80 bytes each). */
const MAX_REMEMBERED_DATES = 4096;
const zoneDates = new Map<string, Map<number, string>>();

/** Minutes a numeric offset zone ("+02:00", "UTC-5", "GMT+0530") is ahead of UTC; null for anything else. */
function offsetMinutes(zone: string): number | null {
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
