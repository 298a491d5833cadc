// The engine's port (SyncStore) on PostgreSQL: one transaction per calendar, each kind of change one statement.
import type { CalendarWrite, FeedEvent } from "../../engine/model.js";
import { CALENDAR_ORDER, CALENDAR_SELECT } from "./calendars.js";
import { newId } from "../ids.js";
import type { PgDatabase } from "./pool.js";
import { TOUCH_PROPERTY_FEED } from "./properties.js";
import { toStoredReservation, type CalendarRow, type ReservationDbRow } from "./rows.js";
// The rows arrive in SQLite's shapes (pool.ts), so the engine's records are mapped as SQLite maps them.
import { toCalendarRecord, toConflictInput, type BookingRow } from "../sqlite/sync-port.js";
import type { Store } from "../types.js";

export type SyncPortQueries = Pick<Store,
  "ownerCalendars" | "calendarReservations" | "applyCalendarSync" | "recordCalendarFailure" | "propertyActiveBookings">;

// Rows travel as parallel arrays through unnest(): one round trip for all of a calendar's inserts.
const EVENT_COLUMNS = `t(id, uid, kind, start, end_, summary, details, raw)`;
const EVENT_ARRAYS = `unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])`;

const INSERT = `
  INSERT INTO reservations (id, calendar_id, uid, kind, start, "end", summary, details, raw, created_at, updated_at, status)
  SELECT t.id, $9, t.uid, t.kind, t.start, t.end_, t.summary, t.details::json, t.raw::json, $10, $10, 'active'
  FROM ${EVENT_ARRAYS} AS ${EVENT_COLUMNS}`;
// The uid follows the feed too: a block the diff paired as "moved" may come back under a new UID.
const UPDATE = `
  UPDATE reservations r SET uid = t.uid, kind = t.kind, start = t.start, "end" = t.end_, summary = t.summary,
    details = t.details::json, raw = t.raw::json, updated_at = $10, status = 'active'
  FROM ${EVENT_ARRAYS} AS ${EVENT_COLUMNS} WHERE r.id = t.id AND r.calendar_id = $9`;
const CANCEL = `
  UPDATE reservations SET status = 'cancelled', updated_at = $1
  WHERE id = ANY($2::text[]) AND calendar_id = $3 AND status = 'active'`;
const FEED_STATE = `
  UPDATE calendars SET etag = $2, last_modified = $3, content_hash = $4, last_found = $5, last_status = 'success',
    last_error_code = NULL, last_error_message = NULL, last_synced_at = $6 WHERE id = $1`;

/** The statements the sync engine runs on one database (the history is in sync-runs.ts). */
export function syncPortQueries(db: PgDatabase): SyncPortQueries {
  return {
    // One statement is one snapshot, as SQLite's transaction gives: the count rides along with the calendars.
    async ownerCalendars(ownerId) {
      const rows = await db.query<CalendarRow & { properties_checked: number }>(
        `${CALENDAR_SELECT.replace("SELECT", `SELECT (SELECT COUNT(*)::int FROM properties WHERE owner_id = $1) AS properties_checked,`)}
         WHERE p.owner_id = $1 ORDER BY ${CALENDAR_ORDER}`,
        [ownerId],
      );
      const propertiesChecked = rows[0]?.properties_checked ??
        (await db.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM properties WHERE owner_id = $1", [ownerId]))[0]!.n;
      return { propertiesChecked, calendars: rows.map(toCalendarRecord) };
    },
    async calendarReservations(calendarId) {
      // By uid, as SQLite's (calendar_id, uid) index reads them: the diff pairs moved blocks in this order.
      const rows = await db.query<ReservationDbRow>('SELECT * FROM reservations WHERE calendar_id = $1 ORDER BY uid COLLATE "C"', [calendarId]);
      return rows.map(toStoredReservation);
    },
    async applyCalendarSync({ calendarId, inserts, updates, cancels, feed, syncedAt }: CalendarWrite) {
      const at = syncedAt.toISOString();
      const state = [calendarId, feed.etag, feed.lastModified, feed.contentHash, feed.lastFound, at];
      // An unchanged feed writes one row: a statement is a transaction of its own.
      if (inserts.length + updates.length + cancels.length === 0) {
        await db.run(FEED_STATE, state);
        return;
      }
      await db.transaction(async (sql) => {
        // A calendar removed while its feed was being fetched has nothing left to write to.
        if ((await sql.run(FEED_STATE, state)) === 0) return;
        if (inserts.length > 0) await sql.run(INSERT, [...eventArrays(inserts.map((event) => [newId("rsv"), event])), calendarId, at]);
        if (updates.length > 0) await sql.run(UPDATE, [...eventArrays(updates.map(({ id, event }) => [id, event])), calendarId, at]);
        if (cancels.length > 0) await sql.run(CANCEL, [at, cancels, calendarId]);
        // `at` is the sync's clock, read before the fetch; the feed's Last-Modified needs the commit's.
        await sql.run(TOUCH_PROPERTY_FEED, [new Date().toISOString(), calendarId]);
      });
    },
    async recordCalendarFailure({ calendarId, error, failedAt }) {
      await db.run(
        `UPDATE calendars SET last_status = 'failed', last_error_code = $1, last_error_message = $2, last_synced_at = $3
         WHERE id = $4`,
        [error.code, error.message, failedAt.toISOString(), calendarId],
      );
    },
    async propertyActiveBookings(propertyId) {
      const rows = await db.query<BookingRow>(
        `SELECT r.id, c.property_id, p.name AS property_name, r.calendar_id, c.source, r.kind, r.status, r.start,
         r."end", r.summary
         FROM reservations r JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id
         WHERE c.property_id = $1 AND r.status = 'active' AND r.kind = 'booking'`,
        [propertyId],
      );
      return rows.map(toConflictInput);
    },
  };
}

/** Events as the eight column arrays of EVENT_ARRAYS. */
function eventArrays(rows: Array<[string, FeedEvent]>): string[][] {
  const columns: string[][] = [[], [], [], [], [], [], [], []];
  for (const [id, event] of rows) {
    const values = [id, event.uid, event.kind, event.start, event.end, event.summary, JSON.stringify(event.details), JSON.stringify(event.raw)];
    values.forEach((value, i) => columns[i]!.push(value));
  }
  return columns;
}
