// node-ical reads a date-time whose zone it cannot place (a floating time, an unknown TZID) in the
// machine's own zone, so two machines would store two instants. Re-read such wall times in the
// calendar's zone (X-WR-TIMEZONE) or else as UTC, so every machine agrees.

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

/** Numeric offsets node-ical applies itself: "+02:00", "UTC+2", "GMT+0200". */
const OFFSET = /^(?:utc|gmt)?\s*[+-]\d{1,2}(?::?\d{2})?$/i;

/** The instant of a node-ical date-time, the same on every machine. `calendarZone` is X-WR-TIMEZONE. */
export function stableInstant(date: Date, calendarZone?: string): Date {
  const zone: unknown = (date as Date & { tz?: unknown }).tz;
  if (typeof zone === "string" && (OFFSET.test(zone.trim()) || formatter(zone))) return date;
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
