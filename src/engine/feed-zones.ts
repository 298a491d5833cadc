// Which wall clock a TZID names in one feed (CONTRACT §4 "Reading iCalendar exactly"): a VTIMEZONE
// of the same feed, whatever its name; else an IANA name, a numeric offset or a Windows name (node-ical's
// mapping); else the calendar's X-WR-TIMEZONE; else UTC. Never the machine's zone.
import ical from "node-ical";
import { offsetMinutes } from "./wall-time.js";
import { fixedZone, intlZone, UTC_ZONE, type WallZone } from "./wall-zones.js";
import { vtimezoneZone, type Observance } from "./zone-rules.js";

/** The zones of one feed. */
export interface FeedZones {
  /** The zone a TZID names (quotes already stripped); undefined when nothing names it. */
  named(tzid: string): WallZone | undefined;
  /** Where floating times, UTC times' nights and unknown TZIDs are read: X-WR-TIMEZONE, else UTC. */
  calendar: WallZone;
  /** Whether `calendar` comes from X-WR-TIMEZONE (a UTC time's nights are read there), rather than the UTC default. */
  calendarNamed: boolean;
}

/** The zones of a feed with these VTIMEZONEs (TZID → observances) and this X-WR-TIMEZONE. */
export function feedZones(definitions: Map<string, Observance[]>, calendarName: string | undefined): FeedZones {
  const cache = new Map<string, WallZone | undefined>();
  const named = (tzid: string): WallZone | undefined => {
    if (cache.has(tzid)) return cache.get(tzid);
    const defined = definitions.get(tzid);
    const zone = (defined && vtimezoneZone(defined, intlZone(tzid) ? tzid : null)) ?? knownZone(tzid);
    cache.set(tzid, zone);
    return zone;
  };
  const calendar = calendarName ? named(calendarName) : undefined;
  return { named, calendar: calendar ?? UTC_ZONE, calendarNamed: calendar !== undefined };
}

/** Names node-ical reads as the machine's own zone when no VTIMEZONE defines them: here, unknown. */
const MACHINE_NAMES = /^(?:tzone:\/\/microsoft\/|customized time zone|\(no tz description\))/i;
const mapped = new Map<string, WallZone | undefined>();

/** A TZID without VTIMEZONE: IANA (Intl), a numeric offset, or a Windows name node-ical maps. */
function knownZone(tzid: string): WallZone | undefined {
  const trimmed = tzid.trim();
  if (!trimmed) return undefined;
  const intl = intlZone(trimmed);
  if (intl) return intl;
  const minutes = offsetMinutes(trimmed);
  if (minutes !== null) return fixedZone(minutes);
  if (MACHINE_NAMES.test(trimmed)) return undefined;
  if (mapped.has(trimmed)) return mapped.get(trimmed);
  const zone = windowsZone(trimmed);
  if (mapped.size >= 1000) mapped.clear();
  mapped.set(trimmed, zone);
  return zone;
}

/** node-ical's reading of a Windows display name ("W. Europe Standard Time", "(UTC+01:00) Amsterdam, …"). */
function windowsZone(tzid: string): WallZone | undefined {
  if (/[\r\n"]/.test(tzid)) return undefined;
  const text = `BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:z\r\nDTSTART;TZID="${tzid}":20000101T120000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;
  try {
    const warn = console.warn;
    console.warn = () => {};
    let parsed: Record<string, unknown>;
    try {
      parsed = ical.sync.parseICS(text);
    } finally {
      console.warn = warn;
    }
    const tz: unknown = ((parsed["z"] as { start?: unknown } | undefined)?.start as { tz?: unknown } | undefined)?.tz;
    if (typeof tz !== "string" || tz === tzid) return undefined;
    const intl = intlZone(tz);
    if (intl) return intl;
    const minutes = offsetMinutes(tz);
    return minutes === null ? undefined : fixedZone(minutes);
  } catch {
    return undefined;
  }
}
