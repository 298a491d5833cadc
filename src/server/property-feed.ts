// One property's outbound feed as both doors hand it out (`GET /ical/…` and `calsync export`): same bytes, same ETag.
import { buildOutboundFeed, outboundEvents, outboundFeedEtag, type OutboundEvent } from "../engine/outbound-feed.js";
import type { Property, Store } from "../store/types.js";
import { CALENDAR_SOURCES, type CalendarSource } from "../types.js";

/** A rendered outbound feed. */
export interface PropertyFeed {
  /** The iCalendar text (CRLF, folded lines). */
  body: string;
  /** Strong ETag of `body`. */
  etag: string;
  /** When the property's reservations last changed (also every event's `DTSTAMP`). */
  lastModified: Date;
  /** Events in the feed. */
  events: number;
  /** Those events with the reservations behind them, in feed order (for the fetch log); buffer nights included. */
  served: OutboundEvent[];
}

/** Renders `property`'s outbound feed from the store, leaving out the `exclude` sources. */
export async function renderPropertyFeed(store: Store, property: Property, exclude: CalendarSource[] = []): Promise<PropertyFeed> {
  const { reservations, updatedAt } = await store.propertyFeedReservations(property.id);
  // A stamp that moves only when the reservations do keeps an unchanged feed byte-identical, so its
  // ETag holds between a channel's polls; the current time would make every poll a full download.
  const lastModified = new Date(updatedAt ?? property.createdAt);
  const body = buildOutboundFeed({
    propertyId: property.id,
    propertyName: property.name,
    reservations,
    exclude,
    bufferNights: property.bufferNights,
    now: lastModified,
  });
  const served = outboundEvents(reservations, exclude, property.bufferNights);
  return { body, etag: outboundFeedEtag(body), lastModified, events: served.length, served };
}

/** Outcome of `parseExclude`. */
export type ExcludeParse = { ok: true; sources: CalendarSource[] } | { ok: false; unknown: string };

/**
 * The sources named by `exclude` values, each a name or a comma-separated list (`airbnb,booking`),
 * case-insensitive; empty items are skipped. An unknown name is an error: a typo must not silently
 * let a channel re-import its own bookings.
 */
export function parseExclude(values: readonly string[]): ExcludeParse {
  const sources = new Set<CalendarSource>();
  for (const value of values) {
    for (const item of value.split(",")) {
      const name = item.trim().toLowerCase();
      if (name === "") continue;
      if (!(CALENDAR_SOURCES as readonly string[]).includes(name)) return { ok: false, unknown: item.trim() };
      sources.add(name as CalendarSource);
    }
  }
  return { ok: true, sources: [...sources] };
}
