// The zone a timed event was written in, kept with the event so its nights can be read there when
// its property has no zone of its own (CONTRACT §8: the event's TZID, else X-WR-TIMEZONE, else UTC).
import { isTimeZone } from "./wall-time.js";

/** How node-ical names the zone of a `Z` time: no zone of the event's own, so the calendar's applies. */
const UTC_NAMES = new Set(["etc/utc", "utc", "etc/gmt", "gmt", "z"]);

/**
 * The zone of a node-ical date-time: its `TZID` (node-ical maps Windows names to IANA ones) when Intl
 * knows it or it is a numeric offset, else `calendarZone` (X-WR-TIMEZONE) when usable, else undefined
 * (UTC). An unknown TZID falls back exactly as `stableInstant` reads its wall time.
 */
export function eventZone(date: Date, calendarZone?: string): string | undefined {
  const tz: unknown = (date as Date & { tz?: unknown }).tz;
  const own = typeof tz === "string" ? tz.trim() : "";
  if (own && !UTC_NAMES.has(own.toLowerCase()) && isTimeZone(own)) return own;
  return calendarZone && isTimeZone(calendarZone) ? calendarZone : undefined;
}
