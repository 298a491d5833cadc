// GET /cleaning/<token>.ics (CONTRACT §18): the cleaning feed of one property, or of all of an owner's. No API
// key: calendar apps cannot send one, so the secret in the path is the capability; no guest data is in it.
import type { H3, H3Event } from "h3";
import type { Store } from "../store/types.js";
import { renderCleaningFeed } from "./cleaning-feed.js";
import { errorResponse } from "./errors.js";
import { matchesEtag } from "./etag.js";

/** Route of the cleaning feeds; `:file` is `<token>.ics`. */
export const CLEANING_FEED_ROUTE = "/cleaning/:file";

/** Adds `GET /cleaning/<token>.ics` to `app`. */
export function registerCleaningFeedRoute(app: H3, options: { store: Store; requestIdOf: (event: H3Event) => string; now?: () => Date }): void {
  app.get(CLEANING_FEED_ROUTE, async (event) => {
    const requestId = options.requestIdOf(event);
    const token = icsToken(event.url.pathname);
    const scope = token === undefined ? undefined : await cleaningScope(options.store, token);
    if (!scope) return errorResponse(404, "not_found", requestId, {}, "no such cleaning feed; a rotated or revoked link stops working");
    const feed = await renderCleaningFeed(options.store, scope, scope.name, options.now?.() ?? new Date());
    const headers = { etag: feed.etag, "cache-control": "private, no-cache", "x-request-id": requestId };
    const ifNoneMatch = event.req.headers.get("if-none-match");
    if (ifNoneMatch !== null && matchesEtag(ifNoneMatch, feed.etag)) return new Response(null, { status: 304, statusText: "Not Modified", headers });
    return new Response(feed.body, { status: 200, statusText: "OK", headers: { "content-type": "text/calendar; charset=utf-8", ...headers } });
  });
}

// A property's secret first, then an owner's: the two are drawn from the same space and never collide in practice.
async function cleaningScope(store: Store, token: string): Promise<{ ownerId: string; propertyId?: string; name: string } | undefined> {
  const propertyId = await store.findFeedSecret("property-cleaning", token);
  if (propertyId) {
    const property = await store.getProperty(propertyId);
    return property && { ownerId: property.ownerId, propertyId, name: `Cleaning: ${property.name}` };
  }
  const ownerId = await store.findFeedSecret("owner-cleaning", token);
  if (!ownerId) return undefined;
  const owner = await store.getOwner(ownerId);
  return owner && { ownerId, name: `Cleaning: ${owner.name}` };
}

/** The token of the last path segment `<token>.ics`, or undefined when it is not one. */
export function icsToken(pathname: string): string | undefined {
  const file = pathname.slice(pathname.lastIndexOf("/") + 1);
  const token = file.endsWith(".ics") ? file.slice(0, -".ics".length) : "";
  return /^[A-Za-z0-9]+$/.test(token) ? token : undefined;
}
