// Which webhook events are also mailed to their owner (CONTRACT §16), shared by both stores' outbox writers:
// a double booking first seen, a calendar's third failure in a row, and its recovery.
import type { WebhookEvent } from "../types.js";
import type { MailKind, NotificationSettings, QueuedMail } from "./mail-types.js";

/** An event mail is worth sending within a day; later it is stale news, so it is dropped rather than sent. */
export const EVENT_MAIL_LIFETIME_MS = 30 * 3_600_000;

const KIND_OF: Partial<Record<WebhookEvent["type"], { kind: MailKind; setting: keyof NotificationSettings }>> = {
  "booking.conflict": { kind: "booking_conflict", setting: "conflicts" },
  "calendar.failed": { kind: "calendar_failed", setting: "calendars" },
  "calendar.recovered": { kind: "calendar_recovered", setting: "calendars" },
  "channel.stale": { kind: "channel_stale", setting: "channels" },
  "channel.recovered": { kind: "channel_recovered", setting: "channels" },
  "channel.exposed": { kind: "channel_exposed", setting: "channels" },
};

/** True when any event type could be mailed under `settings` (so a writer builds lazy event lists only then). */
export function wantsAnyMail(settings: NotificationSettings): boolean {
  return settings.conflicts || settings.calendars || settings.channels;
}

/** The mails `events` make for an owner with these settings; each carries its event as payload. */
export function mailsForEvents(events: readonly WebhookEvent[], settings: NotificationSettings, now = new Date()): QueuedMail[] {
  const expiresAt = new Date(now.getTime() + EVENT_MAIL_LIFETIME_MS);
  const mails: QueuedMail[] = [];
  for (const event of events) {
    const mapped = KIND_OF[event.type];
    if (mapped && settings[mapped.setting]) mails.push({ kind: mapped.kind, payload: event, expiresAt });
  }
  return mails;
}

/** One booking in a "bookings changed" mail. */
export interface BookingChangeLine {
  change: "created" | "moved" | "cancelled";
  arrival: string;
  departure: string;
  /** `moved` only: the dates it had. */
  previous?: { arrival: string; departure: string };
  summary: string | null;
}

/** What a "bookings changed" mail holds when written: one calendar's sync. */
export interface BookingChangesPayload {
  propertyId: string;
  propertyName: string;
  source: string;
  changes: BookingChangeLine[];
}

/**
 * The one mail of a calendar's sync that created, moved or cancelled bookings, or null. Blocks are left out,
 * and with them every echo (an echo is a block, CONTRACT §8); an update that kept the dates (the summary or
 * a note changed) is no news for this mail.
 */
export function bookingChangesMail(events: readonly WebhookEvent[], now = new Date()): QueuedMail | null {
  let head: BookingChangesPayload | null = null;
  const changes: BookingChangeLine[] = [];
  for (const event of events) {
    if (event.type !== "reservation.created" && event.type !== "reservation.updated" && event.type !== "reservation.cancelled") continue;
    const { reservation } = event.data;
    if (reservation.kind !== "booking") continue;
    const { arrival, departure, summary } = reservation;
    if (event.type === "reservation.updated") {
      const previous = event.data.previous;
      if (previous.arrival === arrival && previous.departure === departure) continue;
      changes.push({ change: "moved", arrival, departure, previous: { arrival: previous.arrival, departure: previous.departure }, summary });
    } else {
      changes.push({ change: event.type === "reservation.created" ? "created" : "cancelled", arrival, departure, summary });
    }
    head ??= { propertyId: reservation.propertyId, propertyName: reservation.propertyName, source: reservation.source, changes };
  }
  if (!head) return null;
  changes.sort((a, b) => (a.arrival < b.arrival ? -1 : a.arrival > b.arrival ? 1 : 0));
  return { kind: "bookings_changed", payload: head, expiresAt: new Date(now.getTime() + EVENT_MAIL_LIFETIME_MS) };
}

/** A "bookings changed" mail as sent: the calendars of one run (or of runs the worker found waiting together). */
export interface MergedBookingChanges {
  groups: BookingChangesPayload[];
}

/** The calendars a "bookings changed" payload lists, whether written by one calendar's sync or merged. */
export function bookingChangeGroups(payload: unknown): BookingChangesPayload[] {
  const value = (typeof payload === "string" ? JSON.parse(payload) : payload) as BookingChangesPayload | MergedBookingChanges;
  return "groups" in value ? value.groups : [value];
}

/**
 * One payload for an owner's waiting "bookings changed" mails, oldest first: a sync writes one per calendar (in
 * that calendar's transaction, so none is lost), and the worker sends them as the one mail of the sync
 * (CONTRACT §18) once the owner's run is over.
 */
export function mergeBookingChanges(payloads: readonly unknown[]): MergedBookingChanges {
  return { groups: payloads.flatMap(bookingChangeGroups) };
}
