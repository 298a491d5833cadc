// The cleaning feed (CONTRACT §18): one timed event per turnover, from check-out to check-in time that day in
// the property's zone, for the people who clean. Pure. Nothing about the guests: no name, channel, summary or
// note; the UID is the departing reservation's, so a moved stay moves its cleaning and a cancelled one removes it.
import ical, { escape } from "ical-generator";
import type { Turnover } from "../resource-types.js";
import { OUTBOUND_PRODUCT_ID } from "./outbound-feed.js";
import { vtimezone } from "./vtimezone.js";

/** A property as the cleaning feed names it. */
export interface CleaningProperty {
  id: string;
  name: string;
  /** IANA zone of its times; without one they are floating (read on the reader's clock). */
  timeZone: string | null;
  /** `HH:MM`: the cleaning window ends then, whether or not a next arrival is booked. */
  checkInTime: string;
}

/** What `buildCleaningFeed` needs. */
export interface CleaningFeedInput {
  /** The feed's name (`X-WR-CALNAME`). */
  name: string;
  properties: readonly CleaningProperty[];
  turnovers: readonly Turnover[];
  /** Every event's DTSTAMP: a time that moves only when the data may have, so an unchanged feed keeps its ETag. */
  stamp: Date;
}

/** The UID of the cleaning after the departing reservation `id`. */
export const cleaningUid = (reservationId: string) => `${reservationId}-cleaning@calsync`;

/** The cleaning feed's iCalendar text (CRLF, folded lines). */
export function buildCleaningFeed(input: CleaningFeedInput): string {
  const byId = new Map(input.properties.map((p) => [p.id, p]));
  const years = input.turnovers.map((t) => Number(t.date.slice(0, 4)));
  const [first, last] = years.length > 0 ? [Math.min(...years), Math.max(...years)] : [0, 0];
  const calendar = ical({
    prodId: OUTBOUND_PRODUCT_ID.replace(/^-/, ""),
    name: escape(input.name, false),
    // One VTIMEZONE per zone the events use, covering their years.
    timezone: { name: null, generator: (zone) => vtimezone(zone, first, last) },
  });
  for (const t of input.turnovers) {
    const property = byId.get(t.propertyId);
    if (!property) continue;
    const next = t.nextArrival;
    const description = next
      ? `Next arrival: ${next.date} at ${next.checkInTime}${t.tight ? "\nTight turnover: the next stay starts within the nights kept free." : ""}`
      : "No next arrival booked";
    calendar.createEvent({
      id: cleaningUid(t.departingReservationId),
      // Wall times as UTC fields: ical-generator writes a Date's UTC fields after TZID (or floating) as they are.
      start: wall(t.date, t.checkOutTime),
      end: cleaningEnd(t, property.checkInTime),
      ...(property.timeZone ? { timezone: property.timeZone } : { floating: true }),
      stamp: input.stamp,
      summary: `Cleaning: ${property.name}${t.sameDay ? " (same day)" : ""}`,
      description,
    });
  }
  return `${calendar.toString()}\r\n`;
}

// Check-in time that day; a check-in no later than the check-out (settings that make no window) gives an hour.
function cleaningEnd(t: Turnover, checkInTime: string): Date {
  const start = wall(t.date, t.checkOutTime);
  const end = wall(t.date, checkInTime);
  return end > start ? end : new Date(start.getTime() + 3_600_000);
}

function wall(date: string, time: string): Date {
  return new Date(`${date}T${time}:00Z`);
}
