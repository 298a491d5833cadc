// The read side of API v1's resources (CONTRACT §14): properties, a property's reservations page by page,
// and which nights are free. Every door (API, CLI, dashboard) reads through these.
import { availabilityRange } from "../engine/availability-range.js";
import { maskUrl } from "../engine/mask-url.js";
import { todayAt } from "../engine/nights.js";
import type { Availability, Page, Property, Reservation } from "../resource-types.js";
import type { Property as StoredProperty, Store } from "../store/types.js";
import { failure, type ResourceResult } from "./answers.js";
import { propertyCursor, readPropertyCursor, readReservationCursor, reservationCursor } from "./cursor.js";
import { propertyNights } from "./property-nights.js";
import { readLimit, readListQuery } from "./validate.js";

/** Query values as a door received them (strings, or absent). */
export type QueryValues = Record<string, string | undefined>;

/** The owner's properties by name (then id), a page at a time; `feedBase` is the server's origin for `feedUrl`. */
export async function listProperties(store: Store, input: { ownerId: string; query: QueryValues; feedBase: string }): Promise<ResourceResult<Page<Property>>> {
  const limit = readLimit(input.query.limit);
  if (!limit.ok) return badRequest(limit.problem);
  const after = input.query.cursor === undefined ? undefined : readPropertyCursor(input.query.cursor);
  if (input.query.cursor !== undefined && !after) return badCursor();
  const sorted = (await store.listProperties(input.ownerId)).sort(compareProperties);
  const rest = after ? sorted.filter((p) => compareProperties(p, after) > 0) : sorted;
  const rows = rest.slice(0, limit.value);
  const data = await Promise.all(rows.map((p) => propertyOf(store, p, input.feedBase)));
  const nextCursor = rest.length > rows.length ? propertyCursor(rows.at(-1)!) : null;
  return { ok: true, value: { data, nextCursor } };
}

/** One property of the owner (404 for another owner's, or none). */
export async function retrieveProperty(store: Store, input: { ownerId: string; propertyId: string; feedBase: string }): Promise<ResourceResult<Property>> {
  const property = await ownedProperty(store, input.ownerId, input.propertyId);
  if (!property) return failure(404, "not_found", "no such property");
  return { ok: true, value: await propertyOf(store, property, input.feedBase) };
}

/** A page of a property's reservations by arrival, then id, filtered by `from`, `to`, `status`. */
export async function listReservations(store: Store, input: { ownerId: string; propertyId: string; query: QueryValues }): Promise<ResourceResult<Page<Reservation>>> {
  const property = await ownedProperty(store, input.ownerId, input.propertyId);
  if (!property) return failure(404, "not_found", "no such property");
  const query = readListQuery(input.query);
  if (!query.ok) return badRequest(query.problem);
  const { from, to, status, limit, cursor } = query.value;
  const after = cursor === undefined ? undefined : readReservationCursor(cursor);
  if (cursor !== undefined && !after) return badCursor();
  // One row more than the page tells whether another page follows.
  const rows = await store.reservationsPage({ propertyId: property.id, from, to, status, limit: limit + 1, after });
  const data = rows.slice(0, limit);
  return { ok: true, value: { data, nextCursor: rows.length > limit ? reservationCursor(data.at(-1)!) : null } };
}

/** Which nights of a property are free in [from, to) (defaults: today in its zone, a year). */
export async function propertyAvailability(
  store: Store,
  input: { ownerId: string; propertyId: string; query: QueryValues; now?: Date },
): Promise<ResourceResult<Availability>> {
  const property = await ownedProperty(store, input.ownerId, input.propertyId);
  if (!property) return failure(404, "not_found", "no such property");
  // The public feed (§15) reads the same range and the same rows, so both answer a night alike.
  const range = availabilityRange({ from: input.query.from ?? null, to: input.query.to ?? null }, todayAt(input.now ?? new Date(), property.timeZone));
  if (!range.ok) return badRequest({ name: range.parameter, message: range.message });
  const { from, to } = range;
  const nights = await propertyNights(store, property, { from, to });
  return { ok: true, value: { propertyId: property.id, timeZone: property.timeZone, from, to, nights } };
}

export async function ownedProperty(store: Store, ownerId: string, propertyId: string): Promise<StoredProperty | undefined> {
  const property = await store.getProperty(propertyId);
  return property && property.ownerId === ownerId ? property : undefined;
}

// A read shows the feed token as stored and never makes one: a feed the owner switched off stays off, and a
// property never published gets no public URL until the owner asks for it (CONTRACT §14). Nor a cleaning link (§18).
export async function propertyOf(store: Store, property: StoredProperty, feedBase: string): Promise<Property> {
  const [calendars, cleaningToken] = await Promise.all([
    store.listCalendars({ propertyId: property.id, includeDirect: true }),
    store.feedSecret("property-cleaning", property.id, "read"),
  ]);
  const token = property.feedToken;
  return {
    id: property.id,
    name: property.name,
    timeZone: property.timeZone,
    feedUrl: token ? `${feedBase.replace(/\/+$/, "")}/ical/${token}.ics` : null,
    calendars: calendars.map((c) => ({
      id: c.id,
      source: c.source,
      url: c.source === "direct" ? "" : maskUrl(c.url),
      status: c.lastStatus,
      lastSyncedAt: c.lastSyncedAt,
      consecutiveFailures: c.consecutiveFailures,
      failingSince: c.failingSince,
    })),
    checkInTime: property.checkInTime,
    checkOutTime: property.checkOutTime,
    bufferNights: property.bufferNights,
    cleanerEmails: property.cleanerEmails,
    cleaningUrl: cleaningToken === null ? null : `${feedBase.replace(/\/+$/, "")}/cleaning/${cleaningToken}.ics`,
  };
}

function compareProperties(a: { name: string; id: string }, b: { name: string; id: string }): number {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const badRequest = (problem: { name: string; message: string }) => failure(400, "bad_request", problem.message, { field: problem.name });
const badCursor = () => failure(400, "bad_request", "cursor is not one this API gave out", { field: "cursor" });
