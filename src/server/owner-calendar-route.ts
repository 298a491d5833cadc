// GET /ical/owner/<token>.ics (CONTRACT §18): the owner's own calendar, with guest details. Its own secret (never
// the channels' feed token), `Cache-Control: private`, revocable with `calsync owner calendar --revoke`.
import type { H3, H3Event } from "h3";
import { buildOwnerCalendar } from "../engine/owner-calendar.js";
import { outboundFeedEtag } from "../engine/outbound-feed.js";
import { addDays, todayAt } from "../engine/nights.js";
import type { Store } from "../store/types.js";
import { icsToken } from "./cleaning-route.js";
import { errorResponse } from "./errors.js";
import { matchesEtag } from "./etag.js";

/** Route of the owner's calendar; `:file` is `<token>.ics`. */
export const OWNER_CALENDAR_ROUTE = "/ical/owner/:file";

/** Days of past stays the owner's calendar keeps. */
export const OWNER_CALENDAR_DAYS_BEFORE = 90;

/** Renders the owner's calendar from the store. */
export async function renderOwnerCalendar(store: Store, ownerId: string, name: string, now = new Date()): Promise<{ body: string; etag: string }> {
  const properties = await store.listProperties(ownerId);
  const stays = await store.ownerCalendarReservations(ownerId, addDays(todayAt(now, null), -OWNER_CALENDAR_DAYS_BEFORE));
  // The day's start: within a day an unchanged calendar keeps its bytes and ETag.
  const stamp = new Date(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
  const body = buildOwnerCalendar({ name, properties, stays, stamp });
  return { body, etag: outboundFeedEtag(body) };
}

/** Adds `GET /ical/owner/<token>.ics` to `app`. */
export function registerOwnerCalendarRoute(app: H3, options: { store: Store; requestIdOf: (event: H3Event) => string; now?: () => Date }): void {
  app.get(OWNER_CALENDAR_ROUTE, async (event) => {
    const requestId = options.requestIdOf(event);
    const token = icsToken(event.url.pathname);
    const ownerId = token === undefined ? undefined : await options.store.findFeedSecret("owner-calendar", token);
    const owner = ownerId === undefined ? undefined : await options.store.getOwner(ownerId);
    if (!owner) return errorResponse(404, "not_found", requestId, {}, "no such calendar; a rotated or revoked link stops working");
    const calendar = await renderOwnerCalendar(options.store, owner.id, `${owner.name}: stays`, options.now?.() ?? new Date());
    // Guest details: no shared cache may keep it.
    const headers = { etag: calendar.etag, "cache-control": "private, no-cache", "x-request-id": requestId };
    const ifNoneMatch = event.req.headers.get("if-none-match");
    if (ifNoneMatch !== null && matchesEtag(ifNoneMatch, calendar.etag)) return new Response(null, { status: 304, statusText: "Not Modified", headers });
    return new Response(calendar.body, { status: 200, statusText: "OK", headers: { "content-type": "text/calendar; charset=utf-8", ...headers } });
  });
}
