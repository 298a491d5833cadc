// GET /ical/<feedToken>.ics: a property's merged feed for the channels' "import calendar" boxes.
// Channels cannot send headers, so there is no API key: the feed token in the path is the secret.
import type { H3, H3Event } from "h3";
import { fetchedNights } from "../engine/echoes.js";
import { todayAt } from "../engine/nights.js";
import type { Store } from "../store/types.js";
import { CALENDAR_SOURCES } from "../types.js";
import { errorResponse } from "./errors.js";
import { matchesEtag } from "./etag.js";
import { parseExclude, renderPropertyFeed } from "./property-feed.js";

/** Route of the outbound feed; `:file` is `<feedToken>.ics`. */
export const OUTBOUND_FEED_ROUTE = "/ical/:file";

/** Time from the start of a change's second until its Last-Modified is sent: the second, then a write's worth. */
const SETTLE_MS = 2000;

/** Options of `registerOutboundFeedRoute`. */
export interface OutboundFeedRouteOptions {
  store: Store;
  /** The request id the app's middleware logs for this request. */
  requestIdOf: (event: H3Event) => string;
  /** Clock of the fetch log. @default () => new Date() */
  now?: () => Date;
}

/** Adds `GET /ical/<feedToken>.ics[?exclude=airbnb,booking]` (HEAD too) to `app`. */
export function registerOutboundFeedRoute(app: H3, options: OutboundFeedRouteOptions): void {
  app.get(OUTBOUND_FEED_ROUTE, async (event) => {
    const requestId = options.requestIdOf(event);
    const token = feedTokenOf(event.url.pathname);
    const property = token === undefined ? undefined : await options.store.getPropertyByFeedToken(token);
    if (!property) {
      const message = "no such calendar feed; a rotated feed URL stops working (calsync property feed ID prints the current one)";
      return errorResponse(404, "not_found", requestId, {}, message);
    }

    const exclude = parseExclude(event.url.searchParams.getAll("exclude"));
    if (!exclude.ok) return invalidExclude(exclude.unknown, requestId);

    const feed = await renderPropertyFeed(options.store, property, exclude.sources);
    // What the channel now holds, before it gets it: an event a channel exports after this fetch with
    // exactly these nights is its echo, not a sale (CONTRACT §8). A HEAD learns no nights, but is a read of
    // the channel's link (CONTRACT §17), as is a 304.
    const at = options.now?.() ?? new Date();
    const nights = event.req.method === "HEAD" ? null : fetchedNights(feed.served, todayAt(at, property.timeZone));
    const userAgent = event.req.headers.get("user-agent");
    await options.store.recordOutboundFetch({ propertyId: property.id, exclude: exclude.sources, etag: feed.etag, nights, at, userAgent });
    const headers: Record<string, string> = {
      etag: feed.etag,
      // Revalidate on every poll: after a sync (or a rotation) the next fetch must see it.
      "cache-control": "no-cache",
      "x-request-id": requestId,
    };
    const lastModified = settledLastModified(feed.lastModified, new Date());
    if (lastModified) headers["last-modified"] = lastModified;
    if (notModified(event.req.headers, feed.etag, lastModified)) {
      return new Response(null, { status: 304, statusText: "Not Modified", headers });
    }
    return new Response(feed.body, {
      status: 200,
      statusText: "OK",
      headers: { "content-type": "text/calendar; charset=utf-8", ...headers },
    });
  });
}

/** The request path with any feed token (the outbound feed's, the availability feed's, a cleaning feed's) replaced by `***`, for access logs. */
export function maskFeedPath(path: string): string {
  return path
    .replace(/\/ical\/owner\/([^/]+)/gi, (_match, file: string) => `/ical/owner/***${/\.ics$/i.test(file) ? ".ics" : ""}`)
    .replace(/\/ical\/(?!owner\/)([^/]+)/gi, (_match, file: string) => `/ical/***${/\.ics$/i.test(file) ? ".ics" : ""}`)
    .replace(/\/availability\/([^/]+)/gi, (_match, file: string) => `/availability/***${/\.json$/i.test(file) ? ".json" : ""}`)
    .replace(/\/cleaning\/([^/]+)/gi, (_match, file: string) => `/cleaning/***${/\.ics$/i.test(file) ? ".ics" : ""}`);
}

// The last path segment, so the route works mounted under a prefix too.
function feedTokenOf(pathname: string): string | undefined {
  const file = pathname.slice(pathname.lastIndexOf("/") + 1);
  const token = file.endsWith(".ics") ? file.slice(0, -".ics".length) : "";
  return /^[A-Za-z0-9]+$/.test(token) ? token : undefined;
}

/**
 * The Last-Modified header, or none until a second has passed since the change's second ended.
 * HTTP dates count whole seconds, so a later change within that second would carry the same date,
 * and a change stamped just before a commit still running (another process) could too; a channel
 * asking If-Modified-Since would be told 304 and miss those nights.
 */
function settledLastModified(changedAt: Date, now: Date): string | undefined {
  const second = Math.floor(changedAt.getTime() / 1000) * 1000;
  return now.getTime() >= second + SETTLE_MS ? changedAt.toUTCString() : undefined;
}

// If-None-Match wins when sent (RFC 9110 §13.2.2); If-Modified-Since counts only with a Last-Modified to compare.
function notModified(request: Headers, etag: string, lastModified: string | undefined): boolean {
  const ifNoneMatch = request.get("if-none-match");
  if (ifNoneMatch !== null) return matchesEtag(ifNoneMatch, etag);
  const since = Date.parse(request.get("if-modified-since") ?? "");
  return lastModified !== undefined && !Number.isNaN(since) && Date.parse(lastModified) <= since;
}

function invalidExclude(unknown: string, requestId: string): Response {
  const name = JSON.stringify(unknown.slice(0, 40));
  const message = `unknown source ${name} in exclude; use ${CALENDAR_SOURCES.join(", ")}`;
  return errorResponse(400, "bad_request", requestId, {}, message);
}
