// The engine's port (SyncStore) on SQLite: one transaction per calendar, statements prepared once.
import type Database from "better-sqlite3";
import type { ConflictInput } from "../../engine/conflicts.js";
import type {
  CalendarFailure,
  CalendarRecord,
  CalendarWrite,
  DatedEvent,
  ReservationKind,
  ReservationStatus,
} from "../../engine/model.js";
import { datedEvent } from "../../engine/nights.js";
import type { CalendarSource } from "../../types.js";
import { CALENDAR_ORDER, CALENDAR_SELECT } from "./calendars.js";
import { newId } from "../../ids.js";
import { outboxWriter } from "./outbox.js";
import { TOUCH_PROPERTY_FEED } from "./properties.js";
import { toStoredReservation, type CalendarRow, type ReservationDbRow } from "./rows.js";
import type { Store } from "../types.js";

export type SyncPortQueries = Pick<Store,
  "ownerCalendars" | "calendarReservations" | "applyCalendarSync" | "recordCalendarFailure" | "propertyActiveBookings">;

/** Prepares the statements the sync engine runs on one database (the history is in sync-runs.ts). */
export function syncPortQueries(db: Database.Database): SyncPortQueries {
  const propertyCount = db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM properties WHERE owner_id = ?");
  const calendars = db.prepare<[string], CalendarRow>(`${CALENDAR_SELECT} WHERE p.owner_id = ? ORDER BY ${CALENDAR_ORDER}`);
  // By uid (the (calendar_id, uid) index's own order, so free): the diff pairs moved blocks in this order.
  const reservations = db.prepare<[string], ReservationDbRow>("SELECT * FROM reservations WHERE calendar_id = ? ORDER BY uid");
  // Positional parameters around eventParams: binding an object per row cost a fifth of a first sync's write.
  const insert = db.prepare<[string, string, ...EventParams, string, string, string]>(
    `INSERT INTO reservations (id, calendar_id, uid, kind, start, "end", summary, details, raw, arrival, departure, event_zone,
     echo_of, created_at, updated_at, nights_seen_at, status)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active')`,
  );
  // The uid follows the feed too: a block the diff paired as "moved" may come back under a new UID.
  // Nights first seen now when they move or the row comes back (SET reads the row as it was).
  const update = db.prepare<[string, string, string, ...EventParams, string, string, string]>(
    `UPDATE reservations SET
     nights_seen_at = CASE WHEN status = 'active' AND arrival = ? AND departure = ? THEN nights_seen_at ELSE ? END,
     uid = ?, kind = ?, start = ?, "end" = ?, summary = ?, details = ?, raw = ?, arrival = ?,
     departure = ?, event_zone = ?, echo_of = ?, updated_at = ?, status = 'active' WHERE id = ? AND calendar_id = ?`,
  );
  const cancel = db.prepare<[string, string, string]>(
    `UPDATE reservations SET status = 'cancelled', updated_at = ? WHERE id = ? AND calendar_id = ? AND status = 'active'`,
  );
  // A success ends the calendar's failure streak.
  const feedState = db.prepare(
    `UPDATE calendars SET etag = @etag, last_modified = @lastModified, content_hash = @contentHash,
     last_found = @lastFound, last_status = 'success', last_error_code = NULL, last_error_message = NULL,
     last_synced_at = @at, consecutive_failures = 0, failing_since = NULL WHERE id = @calendarId`,
  );
  const activeBookings = db.prepare<[string], BookingRow>(
    `SELECT r.id, c.property_id, p.name AS property_name, p.time_zone AS property_time_zone, r.calendar_id, c.source,
     r.kind, r.status, r.arrival, r.departure, r.summary
     FROM reservations r JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id
     WHERE c.property_id = ? AND r.status = 'active' AND r.kind = 'booking'`,
  );
  const touchProperty = db.prepare<[string, string]>(TOUCH_PROPERTY_FEED);
  const propertyZone = db.prepare<[string], { time_zone: string | null }>(
    "SELECT p.time_zone FROM calendars c JOIN properties p ON p.id = c.property_id WHERE c.id = ?",
  );
  // The streak's start is kept from its first failure; RETURNING reads the new streak in the same statement.
  const failure = db.prepare<[string, string, string, string, string], { consecutive_failures: number; failing_since: string | null }>(
    `UPDATE calendars SET last_status = 'failed', last_error_code = ?, last_error_message = ?, last_synced_at = ?,
     consecutive_failures = consecutive_failures + 1, failing_since = COALESCE(failing_since, ?)
     WHERE id = ? RETURNING consecutive_failures, failing_since`,
  );

  // Both reads in one transaction, so the count and the calendars come from the same snapshot.
  const readOwner = db.transaction((ownerId: string) => ({
    propertiesChecked: propertyCount.get(ownerId)?.n ?? 0,
    calendars: calendars.all(ownerId).map(toCalendarRecord),
  }));

  const outbox = outboxWriter(db);

  const apply = db.transaction((write: CalendarWrite) => {
    const { calendarId, inserts, updates, cancels, feed, syncedAt, seenAt = syncedAt, timeZone = null } = write;
    const at = syncedAt.toISOString();
    const seen = seenAt.toISOString();
    // A calendar removed while its feed was being fetched has nothing left to write to.
    if (feedState.run({ calendarId, at, ...feed }).changes === 0) return;
    // `property update --timezone` committed while this feed was fetched: its nights follow the zone held now
    // (updateProperty recomputed every row already there; these rows are the rest).
    const zone = propertyZone.get(calendarId)?.time_zone ?? null;
    const dated = zone === timeZone ? (event: DatedEvent) => event : (event: DatedEvent) => datedEvent(event, zone);
    inserts.forEach((event, i) => insert.run(write.insertIds?.[i] ?? newId("rsv"), calendarId, ...eventParams(dated(event)), at, at, seen));
    for (const { id, event } of updates) {
      const row = dated(event);
      update.run(row.arrival, row.departure, seen, ...eventParams(row), at, id, calendarId);
    }
    for (const id of cancels) cancel.run(at, id, calendarId);
    // `at` is the sync's clock, read before the fetch; the feed's Last-Modified needs the commit's.
    if (inserts.length + updates.length + cancels.length > 0) touchProperty.run(new Date().toISOString(), calendarId);
    // Webhook events commit with the rows they announce, or not at all (CONTRACT §11).
    outbox.addForCalendar(calendarId, write.events ?? []);
  });
  const recordFailure = db.transaction(({ calendarId, error, failedAt, events = [] }: CalendarFailure) => {
    const at = failedAt.toISOString();
    const row = failure.get(error.code, error.message, at, at, calendarId);
    if (row) outbox.addForCalendar(calendarId, events);
    return { consecutiveFailures: row?.consecutive_failures ?? 0, failingSince: row?.failing_since ?? null };
  });

  return {
    async ownerCalendars(ownerId) {
      return readOwner(ownerId);
    },
    async calendarReservations(calendarId) {
      return reservations.all(calendarId).map(toStoredReservation);
    },
    async applyCalendarSync(write) {
      apply(write);
    },
    async recordCalendarFailure(failed) {
      return recordFailure(failed);
    },
    async propertyActiveBookings(propertyId) {
      return activeBookings.all(propertyId).map(toConflictInput);
    },
  };
}

type EventParams = [
  uid: string, kind: string, start: string, end: string, summary: string, details: string, raw: string,
  arrival: string, departure: string, eventZone: string | null, echoOf: string | null,
];

function eventParams(event: DatedEvent): EventParams {
  const { uid, kind, start, end, summary, details, raw, arrival, departure, zone, echoOf } = event;
  return [uid, kind, start, end, summary, JSON.stringify(details), JSON.stringify(raw), arrival, departure, zone ?? null, echoOf ?? null];
}

/** A row of the active-bookings query, in both dialects. */
export interface BookingRow {
  id: string; property_id: string; property_name: string; property_time_zone: string | null; calendar_id: string;
  source: string; kind: string; status: string; arrival: string; departure: string; summary: string;
}

/** An active booking as double-booking detection reads it. */
export function toConflictInput(row: BookingRow): ConflictInput {
  return {
    id: row.id,
    propertyId: row.property_id,
    propertyName: row.property_name,
    propertyTimeZone: row.property_time_zone,
    calendarId: row.calendar_id,
    source: row.source as CalendarSource,
    kind: row.kind as ReservationKind,
    status: row.status as ReservationStatus,
    arrival: row.arrival,
    departure: row.departure,
    summary: row.summary,
  };
}

/** A calendar row as the engine sees it. */
export function toCalendarRecord(row: CalendarRow): CalendarRecord {
  return {
    id: row.id,
    propertyId: row.property_id,
    propertyName: row.property_name,
    source: row.source as CalendarSource,
    timeZone: row.property_time_zone,
    url: row.url,
    etag: row.etag,
    lastModified: row.last_modified,
    contentHash: row.content_hash,
    lastFound: row.last_found,
    consecutiveFailures: row.consecutive_failures,
    failingSince: row.failing_since,
  };
}
