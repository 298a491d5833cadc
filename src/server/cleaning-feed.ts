// The cleaning feed of one property or of all of an owner's (CONTRACT §18), as `GET /cleaning/<token>.ics` serves it.
import { buildCleaningFeed } from "../engine/cleaning-feed.js";
import { addDays, todayAt } from "../engine/nights.js";
import { ownerTurnovers } from "../engine/turnovers.js";
import type { Property, Store } from "../store/types.js";
import { outboundFeedEtag } from "../engine/outbound-feed.js";

/** Days of turnovers a cleaning feed carries before today (a cleaner's recent history) and after it. */
export const CLEANING_DAYS_BEFORE = 30;
export const CLEANING_DAYS_AFTER = 366;

/** A rendered cleaning feed. */
export interface CleaningFeed {
  body: string;
  etag: string;
  events: number;
}

/** Renders the cleaning feed of `properties` (one, or all of an owner's), named `name`. */
export async function renderCleaningFeed(store: Store, scope: { ownerId: string; propertyId?: string }, name: string, now = new Date()): Promise<CleaningFeed> {
  const properties: Property[] = scope.propertyId
    ? [(await store.getProperty(scope.propertyId))!].filter(Boolean)
    : await store.listProperties(scope.ownerId);
  const ranges = properties.map((p) => {
    const today = todayAt(now, p.timeZone);
    return { from: addDays(today, -CLEANING_DAYS_BEFORE), to: addDays(today, CLEANING_DAYS_AFTER) };
  });
  const earliest = ranges.reduce((min, r) => (r.from < min ? r.from : min), ranges[0]?.from ?? todayAt(now, null));
  const bookings = await store.turnoverBookings({ ownerId: scope.ownerId, propertyId: scope.propertyId, departingFrom: earliest });
  const turnovers = ownerTurnovers(
    bookings,
    properties.map((p, i) => ({ propertyId: p.id, checkInTime: p.checkInTime, checkOutTime: p.checkOutTime, bufferNights: p.bufferNights, range: ranges[i]! })),
  );
  // The day's start: the window moves daily, and within a day an unchanged feed keeps its bytes and ETag.
  const stamp = new Date(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
  const body = buildCleaningFeed({ name, properties, turnovers, stamp });
  return { body, etag: outboundFeedEtag(body), events: turnovers.length };
}
