// The engine's port (SyncStore) on SQLite: one transaction per calendar, statements prepared once.
import type Database from "better-sqlite3";
import type { ConflictInput } from "../../engine/conflicts.js";
import type { CalendarRecord, CalendarWrite, FeedEvent, ReservationKind, ReservationStatus } from "../../engine/model.js";
import type { CalendarSource } from "../../types.js";
import { CALENDAR_ORDER, CALENDAR_SELECT } from "./calendars.js";
import { newId } from "../ids.js";
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
  const insert = db.prepare<[string, string, ...EventParams, string, string]>(
    `INSERT INTO reservations (id, calendar_id, uid, kind, start, "end", summary, details, raw, created_at, updated_at, status)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active')`,
  );
  // The uid follows the feed too: a block the diff paired as "moved" may come back under a new UID.
  const update = db.prepare<[...EventParams, string, string, string]>(
    `UPDATE reservations SET uid = ?, kind = ?, start = ?, "end" = ?, summary = ?, details = ?, raw = ?, updated_at = ?,
     status = 'active' WHERE id = ? AND calendar_id = ?`,
  );
  const cancel = db.prepare<[string, string, string]>(
    `UPDATE reservations SET status = 'cancelled', updated_at = ? WHERE id = ? AND calendar_id = ? AND status = 'active'`,
  );
  const feedState = db.prepare(
    `UPDATE calendars SET etag = @etag, last_modified = @lastModified, content_hash = @contentHash,
     last_found = @lastFound, last_status = 'success', last_error_code = NULL, last_error_message = NULL,
     last_synced_at = @at WHERE id = @calendarId`,
  );
  const activeBookings = db.prepare<[string], BookingRow>(
    `SELECT r.id, c.property_id, p.name AS property_name, r.calendar_id, c.source, r.kind, r.status, r.start,
     r."end", r.summary
     FROM reservations r JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id
     WHERE c.property_id = ? AND r.status = 'active' AND r.kind = 'booking'`,
  );
  const touchProperty = db.prepare<[string, string]>(TOUCH_PROPERTY_FEED);
  const failure = db.prepare<[string, string, string, string]>(
    `UPDATE calendars SET last_status = 'failed', last_error_code = ?, last_error_message = ?, last_synced_at = ?
     WHERE id = ?`,
  );

  // Both reads in one transaction, so the count and the calendars come from the same snapshot.
  const readOwner = db.transaction((ownerId: string) => ({
    propertiesChecked: propertyCount.get(ownerId)?.n ?? 0,
    calendars: calendars.all(ownerId).map(toCalendarRecord),
  }));

  const apply = db.transaction(({ calendarId, inserts, updates, cancels, feed, syncedAt }: CalendarWrite) => {
    const at = syncedAt.toISOString();
    // A calendar removed while its feed was being fetched has nothing left to write to.
    if (feedState.run({ calendarId, at, ...feed }).changes === 0) return;
    for (const event of inserts) insert.run(newId("rsv"), calendarId, ...eventParams(event), at, at);
    for (const { id, event } of updates) update.run(...eventParams(event), at, id, calendarId);
    for (const id of cancels) cancel.run(at, id, calendarId);
    // `at` is the sync's clock, read before the fetch; the feed's Last-Modified needs the commit's.
    if (inserts.length + updates.length + cancels.length > 0) touchProperty.run(new Date().toISOString(), calendarId);
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
    async recordCalendarFailure({ calendarId, error, failedAt }) {
      failure.run(error.code, error.message, failedAt.toISOString(), calendarId);
    },
    async propertyActiveBookings(propertyId) {
      return activeBookings.all(propertyId).map(toConflictInput);
    },
  };
}

type EventParams = [uid: string, kind: string, start: string, end: string, summary: string, details: string, raw: string];

function eventParams(event: FeedEvent): EventParams {
  return [event.uid, event.kind, event.start, event.end, event.summary, JSON.stringify(event.details), JSON.stringify(event.raw)];
}

/** A row of the active-bookings query, in both dialects. */
export interface BookingRow {
  id: string; property_id: string; property_name: string; calendar_id: string; source: string; kind: string;
  status: string; start: string; end: string; summary: string;
}

/** An active booking as double-booking detection reads it. */
export function toConflictInput(row: BookingRow): ConflictInput {
  return {
    id: row.id,
    propertyId: row.property_id,
    propertyName: row.property_name,
    calendarId: row.calendar_id,
    source: row.source as CalendarSource,
    kind: row.kind as ReservationKind,
    status: row.status as ReservationStatus,
    start: row.start,
    end: row.end,
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
    url: row.url,
    etag: row.etag,
    lastModified: row.last_modified,
    contentHash: row.content_hash,
    lastFound: row.last_found,
  };
}
