// Webhook events (CONTRACT §11) as values: built here from what a run found, written by the store to
// the outbox in the same transaction as the change they announce. Nothing here sends or stores anything.
import { createHash } from "node:crypto";
import { newId } from "../ids.js";
import type { Conflict, SyncError, SyncResponse, WebhookCalendar, WebhookEvent, WebhookReservation } from "../types.js";
import type { ReservationChange } from "./diff.js";
import type { CalendarRecord, DatedEvent, StoredReservation } from "./model.js";
import { FAILING_STREAK, type ConflictAnnouncement } from "./store-port.js";

/** Ids for new rows, made before the write so that its events can name the rows the store writes. */
export function newReservationIds(count: number): string[] {
  return Array.from({ length: count }, () => newId("rsv"));
}

/**
 * The events of a calendar's successful sync: one per counted reservation change, and `calendar.recovered`
 * when it had failed FAILING_STREAK times or more. `insertIds` are the ids the rows of `inserts` get (same order).
 */
export function successEvents(
  calendar: CalendarRecord,
  changes: readonly ReservationChange[],
  inserts: readonly DatedEvent[],
  insertIds: readonly string[],
  at: Date,
): WebhookEvent[] {
  const timestamp = at.toISOString();
  const idOf = new Map(inserts.map((event, index) => [event, insertIds[index]!]));
  const events: WebhookEvent[] = [];
  if (calendar.consecutiveFailures >= FAILING_STREAK) {
    const { consecutiveFailures, failingSince } = calendar;
    events.push({ type: "calendar.recovered", timestamp, data: { calendar: calendarOf(calendar), consecutiveFailures, failingSince } });
  }
  for (const change of changes) {
    if (change.change === "cancelled") {
      const reservation = reservationOf(calendar, change.row.id, change.row, "cancelled");
      events.push({ type: "reservation.cancelled", timestamp, data: { reservation } });
    } else if (change.change === "updated") {
      const reservation = reservationOf(calendar, change.row.id, change.event, "active");
      const { start, end, arrival, departure } = change.row;
      events.push({ type: "reservation.updated", timestamp, data: { reservation, previous: { start, end, arrival, departure } } });
    } else {
      const reservation = reservationOf(calendar, change.row?.id ?? idOf.get(change.event)!, change.event, "active");
      events.push({ type: "reservation.created", timestamp, data: { reservation } });
    }
  }
  return events;
}

/**
 * `calendar.failed` when this failure makes the streak FAILING_STREAK long (once per streak). The streak is
 * the one read at the start of the run: single flight per owner means no one else lengthens it meanwhile.
 */
export function failureEvents(calendar: CalendarRecord, error: SyncError, at: Date): WebhookEvent[] {
  const consecutiveFailures = calendar.consecutiveFailures + 1;
  if (consecutiveFailures !== FAILING_STREAK) return [];
  const timestamp = at.toISOString();
  const failingSince = calendar.failingSince ?? timestamp;
  return [{ type: "calendar.failed", timestamp, data: { calendar: calendarOf(calendar), consecutiveFailures, failingSince, error } }];
}

/** `sync.completed`, carrying the run's Sync response. */
export function runEvents(response: SyncResponse, at: Date): WebhookEvent[] {
  return [{ type: "sync.completed", timestamp: at.toISOString(), data: response }];
}

/** Every double booking with its `booking.conflict` event; the store writes only those it has not announced. */
export function conflictAnnouncements(conflicts: readonly Conflict[], at: Date): ConflictAnnouncement[] {
  const timestamp = at.toISOString();
  // The same reservations in conflict are the same double booking, even when its nights move.
  return conflicts.map((conflict) => ({
    key: conflictKey(conflict),
    event: { type: "booking.conflict", timestamp, data: conflict },
  }));
}

/** Longest key kept as written: PostgreSQL's btree takes at most 2,704 bytes, and a property with 200 channels sold on the same nights made 3,504. */
const MAX_PLAIN_KEY = 512;

/** The double booking's identity: its property and the ids of its reservations, hashed when that runs long. */
export function conflictKey(conflict: Pick<Conflict, "propertyId" | "reservations">): string {
  const plain = `${conflict.propertyId}:${conflict.reservations.map((r) => r.id).sort().join(",")}`;
  if (plain.length <= MAX_PLAIN_KEY) return plain;
  return `${conflict.propertyId}:sha256:${createHash("sha256").update(plain).digest("hex")}`;
}

function calendarOf(calendar: CalendarRecord): WebhookCalendar {
  return { id: calendar.id, propertyId: calendar.propertyId, propertyName: calendar.propertyName, source: calendar.source };
}

type ReservationFields = Pick<StoredReservation, "uid" | "kind" | "start" | "end" | "arrival" | "departure" | "summary">;

function reservationOf(calendar: CalendarRecord, id: string, fields: ReservationFields, status: WebhookReservation["status"]): WebhookReservation {
  const { uid, kind, start, end, arrival, departure, summary } = fields;
  return {
    id,
    propertyId: calendar.propertyId,
    propertyName: calendar.propertyName,
    calendarId: calendar.id,
    source: calendar.source,
    uid,
    kind,
    status,
    start,
    end,
    arrival,
    departure,
    summary,
  };
}
