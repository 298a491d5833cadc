// GET /availability/<feedToken>.json (CONTRACT §15): a property's nights for the owner's own website, read by
// `<calsync-availability>` on pages of any origin. The outbound feed's token is the capability, so rotating
// the feed URL rotates this one too; the answer holds dates and `available` only, nothing about who or where.
import type { H3, H3Event } from "h3";
import { propertyNights } from "../resources/property-nights.js";
import { availabilityRange } from "../engine/availability-range.js";
import { todayAt } from "../engine/nights.js";
import type { Store } from "../store/types.js";
import type { PublicAvailability } from "../resource-types.js";
import { errorResponse } from "./errors.js";
import { matchesEtag, strongEtag } from "./etag.js";

/** Route of the public availability feed; `:file` is `<feedToken>.json`. */
export const AVAILABILITY_FEED_ROUTE = "/availability/:file";

/** How long browsers and caches may keep an answer, in seconds: a new booking shows within five minutes. */
export const AVAILABILITY_MAX_AGE_S = 300;

/** Options of `registerAvailabilityRoute`. */
export interface AvailabilityRouteOptions {
  store: Store;
  /** The request id the app's middleware logs for this request. */
  requestIdOf: (event: H3Event) => string;
  /** Clock deciding the property's today (the default `from`). @default () => new Date() */
  now?: () => Date;
}

// Any page may read it: the answer is public by design, and errors too, so the element can tell a wrong
// token (404) from a server it cannot reach.
const CORS = { "access-control-allow-origin": "*" };

/** Adds `GET /availability/<feedToken>.json?from&to` (HEAD too) to `app`. */
export function registerAvailabilityRoute(app: H3, options: AvailabilityRouteOptions): void {
  app.get(AVAILABILITY_FEED_ROUTE, async (event) => {
    const requestId = options.requestIdOf(event);
    const token = feedTokenOf(event.url.pathname);
    const property = token === undefined ? undefined : await options.store.getPropertyByFeedToken(token);
    if (!property) {
      const message = "no such availability feed; a rotated feed URL changes this address too (the dashboard's property page shows the current one)";
      return errorResponse(404, "not_found", requestId, CORS, message);
    }

    const query = event.url.searchParams;
    const today = todayAt(options.now?.() ?? new Date(), property.timeZone);
    const range = availabilityRange({ from: query.get("from"), to: query.get("to") }, today);
    if (!range.ok) return errorResponse(400, "bad_request", requestId, CORS, range.message);

    // Picked field by field: the rule's reservation ids must never reach a public answer.
    const nights = (await propertyNights(options.store, property, range)).map(({ date, available }) => ({ date, available }));
    const body = JSON.stringify({ from: range.from, to: range.to, nights } satisfies PublicAvailability);

    const etag = strongEtag(body);
    const headers = { ...CORS, etag, "cache-control": `public, max-age=${AVAILABILITY_MAX_AGE_S}`, "x-request-id": requestId };
    const ifNoneMatch = event.req.headers.get("if-none-match");
    if (ifNoneMatch !== null && matchesEtag(ifNoneMatch, etag)) {
      return new Response(null, { status: 304, statusText: "Not Modified", headers });
    }
    return new Response(body, { status: 200, statusText: "OK", headers: { "content-type": "application/json", ...headers } });
  });
}

// The last path segment, so the route works mounted under a prefix too.
function feedTokenOf(pathname: string): string | undefined {
  const file = pathname.slice(pathname.lastIndexOf("/") + 1);
  const token = file.endsWith(".json") ? file.slice(0, -".json".length) : "";
  return /^[A-Za-z0-9]+$/.test(token) ? token : undefined;
}
