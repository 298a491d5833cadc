// A feed that answers a web page is almost always the wrong link pasted: the listing page or the
// channel's dashboard instead of its calendar export. Say which, and where the export link is.
import type { CalendarSource, SyncError } from "../types.js";
import { detectSource } from "./channels.js";

/** What was fetched, as far as the hint needs it. */
export interface HtmlAnswer {
  /** The body the feed answered. */
  body: string;
  /** The calendar's source (given or detected). */
  source: CalendarSource;
  /** The URL as stored, and the one finally answered after redirects. */
  urls: readonly string[];
}

/** Where each channel shows its calendar export link, in the words of its own menus. */
const EXPORT_LINK: Partial<Record<CalendarSource, string>> = {
  airbnb: "in Airbnb open the listing's Availability → Connect calendars → Export calendar and copy that link (…/calendar/ical/….ics)",
  booking: "in the Booking.com extranet open Rates & Availability → Sync calendars and copy the export link",
  vrbo: "in Vrbo open Calendar → Import/Export and copy the export link",
  google: "in Google Calendar open the calendar's Settings → Integrate calendar → Secret address in iCal format",
};
const CHANNEL_NAMES: Record<CalendarSource, string> = {
  airbnb: "Airbnb",
  booking: "Booking.com",
  vrbo: "Vrbo",
  expedia: "Expedia",
  google: "Google Calendar",
  tripadvisor: "Tripadvisor",
  agoda: "Agoda",
  other: "another site",
};
const GENERIC = "paste the channel's calendar export link (it usually ends in .ics), not the address of a page";

/**
 * `error` with a hint when it is `not_icalendar` for an HTML answer: what the URL probably is and
 * where the channel shows its export link. The code stays `not_icalendar`; any other error is returned as is.
 */
export function explainHtmlAnswer(error: SyncError, answer: HtmlAnswer): SyncError {
  if (error.code !== "not_icalendar" || !looksLikeHtml(answer.body)) return error;
  const pages = answer.urls.map(pageOf).filter((page) => page !== undefined);
  const channel = answer.source !== "other" ? answer.source : (pages.map((page) => page.source).find((s) => s !== "other") ?? "other");
  const listing = pages.some((page) => /^\/rooms\/(plus\/)?\d+/i.test(page.path));
  const what = describe(channel, listing, pages);
  const where = EXPORT_LINK[listing ? "airbnb" : channel] ?? GENERIC;
  return { ...error, message: `${error.message}: ${what}, not a calendar export; ${where}` };
}

/** True when a body reads as an HTML page rather than text. */
export function looksLikeHtml(body: string): boolean {
  return /^\s*</.test(body) || /<html|<!doctype/i.test(body.slice(0, 4096));
}

function describe(channel: CalendarSource, listing: boolean, pages: Array<{ host: string; path: string }>): string {
  // Airbnb's listing pages are /rooms/<id> on every Airbnb domain, and on look-alike hosts too.
  if (listing) return channel === "airbnb" ? "this is an Airbnb listing page" : "this looks like an Airbnb listing page (/rooms/…)";
  switch (channel) {
    case "airbnb":
      return "this is an Airbnb web page";
    case "booking": {
      const extranet = pages.some((page) => page.host.startsWith("admin.") || page.path.includes("/hoteladmin/"));
      return extranet ? "this is a page of the Booking.com extranet" : "this is a Booking.com web page";
    }
    case "vrbo":
      return "this is a Vrbo web page (a listing or the owner dashboard)";
    case "other":
      return "the address answered a web page (HTML)";
    default:
      return `this is a web page of ${CHANNEL_NAMES[channel]}`;
  }
}

function pageOf(url: string): { host: string; path: string; source: CalendarSource } | undefined {
  try {
    const parsed = new URL(url.trim().replace(/^webcals?:/i, "https:"));
    return { host: parsed.hostname.toLowerCase(), path: parsed.pathname, source: detectSource(url) };
  } catch {
    return undefined;
  }
}
