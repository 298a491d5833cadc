// Adding a calendar, as every door does it (CLI `calendar add`, the dashboard's form): the checks of
// CONTRACT §6 read from the store, then the write.
import { checkCalendarUrl, feedTokenCandidate, type CalendarUrlVerdict } from "../engine/calendar-checks.js";
import { detectSource } from "../engine/channels.js";
import type { Calendar, Property, Store } from "../store/types.js";
import type { CalendarSource } from "../types.js";

/** What adding a calendar gave: the calendar and warnings for people, or why it was refused. */
export type AddCalendarResult =
  | { ok: true; calendar: Calendar; warnings: string[] }
  | { ok: false; refusal: Extract<CalendarUrlVerdict, { ok: false }> };

/** Runs the checks of CONTRACT §6 for `url` on `property` against the store, writing nothing. */
export async function checkNewCalendar(store: Store, property: Property, url: string): Promise<CalendarUrlVerdict> {
  const names = new Map((await store.listProperties(property.ownerId)).map((p) => [p.id, p.name]));
  const calendars = await store.listCalendars({ ownerId: property.ownerId });
  const token = feedTokenCandidate(url);
  const feedProperty = token === undefined ? undefined : await store.getPropertyByFeedToken(token);
  return checkCalendarUrl({
    url,
    propertyId: property.id,
    ownerCalendars: calendars.map((c) => ({ id: c.id, propertyId: c.propertyId, propertyName: names.get(c.propertyId) ?? c.propertyId, url: c.url })),
    outboundFeed: feedProperty && {
      propertyId: feedProperty.id,
      propertyName: feedProperty.name,
      sameOwner: feedProperty.ownerId === property.ownerId,
    },
  });
}

/** Adds a calendar to `property` unless the checks refuse it; `source` defaults to the one detected from the URL. */
export async function addCalendar(
  store: Store,
  input: { property: Property; url: string; source?: CalendarSource },
): Promise<AddCalendarResult> {
  const verdict = await checkNewCalendar(store, input.property, input.url);
  if (!verdict.ok) return { ok: false, refusal: verdict };
  const calendar = await store.createCalendar({
    propertyId: input.property.id,
    url: input.url,
    source: input.source ?? detectSource(input.url),
  });
  return { ok: true, calendar, warnings: verdict.warnings };
}
