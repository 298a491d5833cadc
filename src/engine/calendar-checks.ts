// Adding a calendar catches an owner's usual mistakes (CONTRACT §6): the same feed twice on one
// property, and calsync's own outbound feed imported back into itself. Pure: the doors read the store.
import { normalizeFeedUrl } from "./feed-url.js";

/** A calendar the owner already has, with its property's name for messages. */
export interface ExistingCalendar {
  id: string;
  propertyId: string;
  propertyName: string;
  url: string;
}

/** The property whose outbound feed token a URL carries (found by `feedTokenCandidate` and a store lookup). */
export interface OutboundFeedMatch {
  propertyId: string;
  propertyName: string;
  /** The property belongs to the owner adding the calendar; another owner's name is never shown. */
  sameOwner: boolean;
}

/** What the checks decided: add (with warnings for people), or refuse with a reason. */
export type CalendarUrlVerdict =
  | { ok: true; warnings: string[] }
  | { ok: false; code: "duplicate_calendar"; calendarId: string; message: string }
  | { ok: false; code: "outbound_feed"; message: string };

/** Input of `checkCalendarUrl`. */
export interface CalendarUrlCheck {
  /** The URL as the owner typed it. */
  url: string;
  /** The property the calendar is being added to. */
  propertyId: string;
  /** Every calendar of the property's owner. */
  ownerCalendars: readonly ExistingCalendar[];
  /** Set when `url` is one of this server's outbound feeds. */
  outboundFeed?: OutboundFeedMatch;
}

const FEED_FILE = /\/([A-Za-z0-9]+)\.ics$/;

/**
 * The token a calsync outbound feed URL (`…/ical/<token>.ics`) would carry, whatever host, scheme
 * or path prefix it is written with; undefined when the URL cannot be one. Look it up in the store
 * to know: tokens are long random secrets, so a match is never a coincidence.
 */
export function feedTokenCandidate(url: string): string | undefined {
  const normal = normalizeFeedUrl(url);
  if (normal === undefined) return undefined;
  return FEED_FILE.exec(new URL(normal).pathname)?.[1];
}

/** Decides whether a calendar may be added with `url` (CONTRACT §6); messages never show the URL's secrets. */
export function checkCalendarUrl(check: CalendarUrlCheck): CalendarUrlVerdict {
  const { outboundFeed } = check;
  if (outboundFeed) return { ok: false, code: "outbound_feed", message: outboundFeedMessage(check.propertyId, outboundFeed) };

  const normal = normalizeFeedUrl(check.url);
  const same = check.ownerCalendars.filter((calendar) => normal !== undefined && normalizeFeedUrl(calendar.url) === normal);
  const here = same.find((calendar) => calendar.propertyId === check.propertyId);
  if (here) {
    const message =
      `this feed is already calendar ${here.id} of "${here.propertyName}" (compared regardless of webcal/http/https, ` +
      "host case, default port, trailing slash and query order); adding it twice would report every stay as a double booking against itself";
    return { ok: false, code: "duplicate_calendar", calendarId: here.id, message };
  }
  // The same feed on two properties can be deliberate (one listing for a house and for its rooms).
  const warnings = same.map(
    (calendar) => `the same feed is already calendar ${calendar.id} of "${calendar.propertyName}"; both properties will show its stays`,
  );
  return { ok: true, warnings };
}

function outboundFeedMessage(propertyId: string, feed: OutboundFeedMatch): string {
  const whose =
    feed.propertyId === propertyId
      ? `this property's own outbound feed ("${feed.propertyName}")`
      : feed.sameOwner
        ? `the outbound feed of your property "${feed.propertyName}"`
        : "an outbound feed this calsync serves";
  return (
    `this URL is ${whose}, calsync's own export: importing it would feed calsync's export back into itself. ` +
    "Paste it into the channels' import boxes instead, and add each channel's own export link here"
  );
}
