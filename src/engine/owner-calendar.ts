// The owner's own calendar (CONTRACT §18): every active stay of every property as a timed event from check-in to
// check-out time in the property's zone, with the channel, the summary, the owner's note and the lines the channel
// wrote in its DESCRIPTION (what Home Assistant's rental-control reads). Personal data: only the owner's link. Pure.
import ical, { escape } from "ical-generator";
import { OUTBOUND_PRODUCT_ID } from "./outbound-feed.js";
import { vtimezone } from "./vtimezone.js";

/** A stay as the owner's calendar shows it. */
export interface OwnerCalendarStay {
  id: string;
  propertyId: string;
  source: string;
  kind: "booking" | "block";
  arrival: string;
  departure: string;
  summary: string;
  note: string | null;
  description: string | null;
}

/** A property as the owner's calendar needs it. */
export interface OwnerCalendarProperty {
  id: string;
  name: string;
  timeZone: string | null;
  checkInTime: string;
  checkOutTime: string;
}

/** The owner's calendar as iCalendar text (CRLF, folded lines), events by arrival then id. */
export function buildOwnerCalendar(input: { name: string; properties: readonly OwnerCalendarProperty[]; stays: readonly OwnerCalendarStay[]; stamp: Date }): string {
  const byId = new Map(input.properties.map((p) => [p.id, p]));
  const stays = input.stays.filter((s) => byId.has(s.propertyId)).sort((a, b) => compare(a.arrival, b.arrival) || compare(a.id, b.id));
  const years = stays.flatMap((s) => [Number(s.arrival.slice(0, 4)), Number(s.departure.slice(0, 4))]);
  const [first, last] = years.length > 0 ? [Math.min(...years), Math.max(...years)] : [0, 0];
  const calendar = ical({
    prodId: OUTBOUND_PRODUCT_ID.replace(/^-/, ""),
    name: escape(input.name, false),
    timezone: { name: null, generator: (zone) => vtimezone(zone, first, last) },
  });
  for (const stay of stays) {
    const property = byId.get(stay.propertyId)!;
    const what = stay.kind === "block" ? `Blocked${stay.summary ? `: ${stay.summary}` : ""}` : stay.summary || "Booked";
    const lines = [
      ...(stay.kind === "block" ? ["Blocked nights (no guest)"] : []),
      ...(stay.note ? [`Note: ${stay.note}`] : []),
      ...(stay.description ? [stay.description] : []),
    ];
    calendar.createEvent({
      id: `${stay.id}-owner@calsync`,
      // Wall times as UTC fields: ical-generator writes a Date's UTC fields after TZID (or floating) as they are.
      start: new Date(`${stay.arrival}T${property.checkInTime}:00Z`),
      end: new Date(`${stay.departure}T${property.checkOutTime}:00Z`),
      ...(property.timeZone ? { timezone: property.timeZone } : { floating: true }),
      stamp: input.stamp,
      summary: `${property.name} · ${stay.source} · ${what}`,
      ...(lines.length > 0 ? { description: lines.join("\n") } : {}),
    });
  }
  return `${calendar.toString()}\r\n`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
