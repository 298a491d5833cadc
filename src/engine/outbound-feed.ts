// The merged outbound feed of one property: every active reservation of all its calendars as
// anonymous "Not available" nights, for the owner to paste into each channel's import box. Pure.
import { createHash } from "node:crypto";
import ical, { escape, ICalEventTransparency } from "ical-generator";
import type { CalendarSource } from "../types.js";
import type { ReservationKind, ReservationStatus } from "./model.js";
import { addDays } from "./nights.js";

/** A reservation as the outbound feed needs it; nothing about the guest on purpose. */
export interface OutboundReservation {
  id: string;
  source: CalendarSource;
  /** First night, `YYYY-MM-DD` (CONTRACT §8). */
  arrival: string;
  /** The morning after the last night (exclusive), `YYYY-MM-DD`. */
  departure: string;
  kind: ReservationKind;
  status: ReservationStatus;
  /** Set when the reservation is a channel's echo of another one (CONTRACT §8); echoes are never served. @default null */
  echoOf?: string | null;
}

/** What `buildOutboundFeed` needs. */
export interface OutboundFeedInput {
  /** The property the feed belongs to (not written into the feed: ids stay internal). */
  propertyId: string;
  /** Shown by calendar apps as the feed's name (`X-WR-CALNAME`). */
  propertyName: string;
  reservations: OutboundReservation[];
  /** Sources left out, so a channel never re-imports its own bookings. @default [] */
  exclude?: CalendarSource[];
  /** Nights kept free before and after every booking (CONTRACT §18), exported on every link. @default 0 */
  bufferNights?: number;
  /**
   * `DTSTAMP` of every event. Pass a time that changes only when the property's reservations do
   * (e.g. its last successful sync), so an unchanged feed is byte-identical and its ETag answers 304.
   * @default the current time
   */
  now?: Date;
  /** `PRODID` of the calendar. @default "-//calsync//calsync 0.1//EN" */
  productId?: string;
}

/** The default `PRODID`. */
export const OUTBOUND_PRODUCT_ID = "-//calsync//calsync 0.1//EN";

/** The text every event carries: other channels learn the nights, never who booked them or where. */
export const OUTBOUND_SUMMARY = "Not available";

/**
 * The property's outbound iCalendar feed (CRLF, folded lines): one all-day event per active
 * reservation not from an excluded source and not an echo, with the UID `<reservation id>@calsync`.
 * Each event spans the reservation's nights, `arrival` → `departure` (for a timed stay, its dates on
 * the property's wall clock), because channels' importers only understand whole nights.
 * Bookings and blocks alike are exported: an owner block on one channel closes the others too.
 */
export function buildOutboundFeed(input: OutboundFeedInput): string {
  const stamp = input.now ?? new Date();
  const calendar = ical({
    // ical-generator writes `PRODID:-` + this value.
    prodId: (input.productId ?? OUTBOUND_PRODUCT_ID).replace(/^-/, ""),
    // ical-generator writes the name unescaped; escape it so a comma or newline cannot break the feed.
    name: escape(input.propertyName, false),
  });

  for (const event of outboundEvents(input.reservations, input.exclude, input.bufferNights)) {
    calendar.createEvent({
      id: event.uid,
      allDay: true,
      // UTC midnight: with no calendar time zone ical-generator formats dates with UTC getters,
      // so the machine's offset cannot move a night.
      start: utcMidnight(event.arrival),
      end: utcMidnight(event.departure),
      stamp,
      summary: OUTBOUND_SUMMARY,
      transparency: ICalEventTransparency.OPAQUE,
    });
  }
  // RFC 5545 ends every content line with CRLF, the last one too; ical-generator omits that one.
  return `${calendar.toString()}\r\n`;
}

/**
 * The reservations the feed serves, in its order: active ones not from an `exclude` source and not echoes.
 * An echo repeats a reservation the feed already carries, or one the fetching channel left out on purpose:
 * serving it would send Airbnb its own stay back through Booking.com's echo, the loop `exclude` prevents.
 */
export function servedReservations<T extends OutboundReservation>(reservations: readonly T[], exclude: readonly CalendarSource[] = []): T[] {
  const excluded = new Set(exclude);
  return (
    reservations
      .filter((r) => r.status === "active" && !excluded.has(r.source) && !r.echoOf)
      // Input order must not change the body, or the ETag would change without the data changing.
      .sort((a, b) => compare(a.arrival, b.arrival) || compare(a.id, b.id))
  );
}

/** One event of the outbound feed: a served reservation's nights, or the buffer nights before or after a booking. */
export interface OutboundEvent {
  /** `<reservation id>@calsync`, or `<id>-before@calsync` / `<id>-after@calsync` for its buffer. */
  uid: string;
  /** The reservation behind the event (the booking a buffer surrounds). */
  reservationId: string;
  arrival: string;
  departure: string;
}

/**
 * Every event of a feed link, in feed order: the served reservations (`servedReservations`), and with
 * `bufferNights` n the n nights before and after every active booking that is not an echo — the excluded
 * source's own bookings too, so each channel keeps the buffer around its own sales (CONTRACT §18). Blocks
 * get none. A buffer is its own event even where it touches or overlaps another: channels close each, and
 * echo detection reads runs of touching events as one.
 */
export function outboundEvents(reservations: readonly OutboundReservation[], exclude: readonly CalendarSource[] = [], bufferNights = 0): OutboundEvent[] {
  const events: OutboundEvent[] = servedReservations(reservations, exclude).map((r) => ({
    uid: `${r.id}@calsync`,
    reservationId: r.id,
    arrival: r.arrival,
    departure: r.departure,
  }));
  if (bufferNights > 0) {
    for (const r of reservations) {
      if (!takesBuffer(r)) continue;
      events.push(
        { uid: `${r.id}-before@calsync`, reservationId: r.id, arrival: addDays(r.arrival, -bufferNights), departure: r.arrival },
        { uid: `${r.id}-after@calsync`, reservationId: r.id, arrival: r.departure, departure: addDays(r.departure, bufferNights) },
      );
    }
  }
  // Input order must not change the body, or the ETag would change without the data changing.
  return events.sort((a, b) => compare(a.arrival, b.arrival) || compare(a.uid, b.uid));
}

/** True for a reservation that keeps buffer nights around it: an active booking that is not an echo. */
export function takesBuffer(r: { kind: ReservationKind; status: ReservationStatus; echoOf?: string | null }): boolean {
  return r.kind === "booking" && r.status === "active" && !r.echoOf;
}

/** Strong ETag (quoted SHA-256 of the body, base64url) for `ETag` / `If-None-Match`. */
export function outboundFeedEtag(body: string): string {
  return `"${createHash("sha256").update(body, "utf8").digest("base64url")}"`;
}

function utcMidnight(date: string): Date {
  return new Date(`${date}T00:00:00Z`);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
