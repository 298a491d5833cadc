// The engine's port (SyncStore) on PostgreSQL: one transaction per calendar, each kind of change one statement.
import { writing } from "../write-faults.js";
import type { CalendarFailure, CalendarWrite, DatedEvent } from "../../engine/model.js";
import { datedEvent } from "../../engine/nights.js";
import { CALENDAR_ORDER, CALENDAR_SELECT } from "./calendars.js";
import { newId } from "../../ids.js";
import { addToOutbox } from "./outbox.js";
import { addMail } from "./mail.js";
import type { PgDatabase, Sql } from "./pool.js";
import { CLEANER_PROPERTY_SELECT, cleanerMails, cleanerWindowStart, toCleanerProperty, type CleanerProperty, type CleanerPropertyRow } from "../cleaner-mails.js";
import type { TurnoverBookingInput } from "../../engine/turnovers.js";
import { TOUCH_PROPERTY_FEED } from "./properties.js";
import { toStoredReservation, type CalendarRow, type ReservationDbRow } from "./rows.js";
// The rows arrive in SQLite's shapes (pool.ts), so the engine's records are mapped as SQLite maps them.
import { toCalendarRecord, toConflictInput, type BookingRow } from "../sqlite/sync-port.js";
import type { Store } from "../types.js";
import type { CalendarStreak, UnchangedSync } from "../../engine/store-port.js";

export type SyncPortQueries = Pick<Store,
  "ownerCalendars" | "calendarReservations" | "applyCalendarSync" | "recordUnchangedSyncs" | "recordCalendarFailure"
  | "recordCalendarFailures" | "propertyActiveBookings">;

// Rows travel as parallel arrays through unnest(): one round trip for all of a calendar's inserts.
const EVENT_COLUMNS = `t(id, uid, kind, start, end_, summary, details, raw, arrival, departure, event_zone, echo_of)`;
const EVENT_ARRAYS = `unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
  $9::text[], $10::text[], $11::text[], $12::text[])`;

// $13 the calendar, $14 the sync's time, $15 when the feed was requested (the nights' first sight).
const INSERT = `
  INSERT INTO reservations (id, calendar_id, uid, kind, start, "end", summary, details, raw, arrival, departure, event_zone,
    echo_of, created_at, updated_at, nights_seen_at, status)
  SELECT t.id, $13, t.uid, t.kind, t.start, t.end_, t.summary, t.details::json, t.raw::json, t.arrival, t.departure,
    t.event_zone, t.echo_of, $14, $14, $15, 'active'
  FROM ${EVENT_ARRAYS} AS ${EVENT_COLUMNS}`;
// The uid follows the feed too: a block the diff paired as "moved" may come back under a new UID.
// Nights first seen now when they move or the row comes back (SET reads the row as it was).
const UPDATE = `
  UPDATE reservations r SET
    nights_seen_at = CASE WHEN r.status = 'active' AND r.arrival = t.arrival AND r.departure = t.departure
      THEN r.nights_seen_at ELSE $15 END,
    uid = t.uid, kind = t.kind, start = t.start, "end" = t.end_, summary = t.summary,
    details = t.details::json, raw = t.raw::json, arrival = t.arrival, departure = t.departure, event_zone = t.event_zone,
    echo_of = t.echo_of, updated_at = $14, status = 'active'
  FROM ${EVENT_ARRAYS} AS ${EVENT_COLUMNS} WHERE r.id = t.id AND r.calendar_id = $13`;
const CANCEL = `
  UPDATE reservations SET status = 'cancelled', updated_at = $1
  WHERE id = ANY($2::text[]) AND calendar_id = $3 AND status = 'active'`;
// A success ends the calendar's failure streak.
const FEED_STATE = `
  UPDATE calendars SET etag = $2, last_modified = $3, content_hash = $4, last_found = $5, last_status = 'success',
    last_error_code = NULL, last_error_message = NULL, last_synced_at = $6, consecutive_failures = 0, failing_since = NULL
  WHERE id = $1`;
// The property's zone, and a lock that keeps it: FOR KEY SHARE lets other calendars of the property write
// beside this one, but makes updateProperty (FOR UPDATE) wait for this commit, or this read wait for its
// commit and see the new zone. Taken first, so every writer locks the property before its calendar.
const PROPERTY_ZONE = `
  SELECT p.time_zone, p.owner_id FROM calendars c JOIN properties p ON p.id = c.property_id WHERE c.id = $1 FOR KEY SHARE OF p`;
// Many unchanged calendars in one statement (so one transaction): FEED_STATE for each row of the arrays.
const FEED_STATES = `
  UPDATE calendars c SET etag = t.etag, last_modified = t.last_modified, content_hash = t.content_hash, last_found = t.last_found,
    last_status = 'success', last_error_code = NULL, last_error_message = NULL, last_synced_at = t.synced_at,
    consecutive_failures = 0, failing_since = NULL
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::timestamptz[])
    AS t(id, etag, last_modified, content_hash, last_found, synced_at)
  WHERE c.id = t.id`;
const FIRST_SYNC = `
  SELECT (last_status IS NULL OR last_status <> 'success') AND NOT EXISTS (SELECT 1 FROM reservations WHERE calendar_id = $1) AS first
  FROM calendars WHERE id = $1`;
// The streak's start is kept from its first failure; RETURNING reads the new streak in the same statement.
const FAILURE = `
  UPDATE calendars SET last_status = 'failed', last_error_code = $1, last_error_message = $2, last_synced_at = $3,
    consecutive_failures = consecutive_failures + 1, failing_since = COALESCE(failing_since, $3)
  WHERE id = $4 RETURNING consecutive_failures, failing_since,
    (SELECT owner_id FROM properties WHERE id = calendars.property_id) AS owner_id`;
// Many failed attempts in one statement (so one transaction): FAILURE for each row of the arrays.
const FAILURES = `
  UPDATE calendars c SET last_status = 'failed', last_error_code = t.code, last_error_message = t.message,
    last_synced_at = t.failed_at, consecutive_failures = c.consecutive_failures + 1, failing_since = COALESCE(c.failing_since, t.failed_at)
  FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS t(id, code, message, failed_at)
  WHERE c.id = t.id RETURNING c.id, c.consecutive_failures, c.failing_since,
    (SELECT owner_id FROM properties WHERE id = c.property_id) AS owner_id`;

/** The statements the sync engine runs on one database (the history is in sync-runs.ts). */
export function syncPortQueries(db: PgDatabase): SyncPortQueries {
  return {
    // One statement is one snapshot, as SQLite's transaction gives: the count rides along with the calendars.
    async ownerCalendars(ownerId) {
      const rows = await db.query<CalendarRow & { properties_checked: number }>(
        `${CALENDAR_SELECT.replace("SELECT", `SELECT (SELECT COUNT(*)::int FROM properties WHERE owner_id = $1) AS properties_checked,`)}
         WHERE p.owner_id = $1 AND c.source <> 'direct' ORDER BY ${CALENDAR_ORDER}`,
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
    applyCalendarSync: (write: CalendarWrite) => writing(() => applyCalendarSync(write)),
    recordUnchangedSyncs: (unchanged: readonly UnchangedSync[]) => writing(() => recordUnchangedSyncs(unchanged)),
    recordCalendarFailure: (failure: CalendarFailure) => writing(() => recordCalendarFailure(failure)),
    recordCalendarFailures: (failures: readonly CalendarFailure[]) => writing(() => recordCalendarFailures(failures)),
    async propertyActiveBookings(propertyId) {
      const rows = await db.query<BookingRow>(
        `SELECT r.id, c.property_id, p.name AS property_name, p.time_zone AS property_time_zone, r.calendar_id, c.source,
         r.kind, r.status, r.arrival, r.departure, r.summary
         FROM reservations r JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id
         WHERE c.property_id = $1 AND r.status = 'active' AND r.kind = 'booking'
         -- Two bookings of one calendar are never a double booking: as on SQLite, one calendar reads nothing.
         AND (SELECT COUNT(*) FROM calendars WHERE property_id = $1) >= 2`,
        [propertyId],
      );
      return rows.map(toConflictInput);
    },
  };

  async function applyCalendarSync(write: CalendarWrite): Promise<void> {
    const { calendarId, inserts, updates, cancels, feed, syncedAt, seenAt = syncedAt, timeZone = null, events = [] } = write;
    const at = syncedAt.toISOString();
    const seen = seenAt.toISOString();
    const state = [calendarId, feed.etag, feed.lastModified, feed.contentHash, feed.lastFound, at];
    const changes = inserts.length + updates.length + cancels.length;
    // An unchanged feed with nothing to announce writes one row: a statement is a transaction of its own.
    if (changes === 0 && events.length === 0) {
      await db.run(FEED_STATE, state);
      return;
    }
    await db.transaction(async (sql) => {
      const [property] = await sql.query<{ time_zone: string | null; owner_id: string }>(PROPERTY_ZONE, [calendarId]);
      // Read before the write: a calendar that never succeeded and holds no rows is on its first sync, whose
      // backlog is no news to mail about (a failed first attempt leaves no rows and no success either).
      const [before] = await sql.query<{ first: boolean }>(FIRST_SYNC, [calendarId]);
      // Cleaners by mail (CONTRACT §18): the property's turnovers before and after the write, in its transaction.
      const cleaners = changes > 0 && before?.first === false ? await cleanersBefore(sql, calendarId) : null;
      // A calendar removed while its feed was being fetched has nothing left to write to.
      if (!property || (await sql.run(FEED_STATE, state)) === 0) return;
      // `property update --timezone` committed while this feed was fetched: its nights follow the zone held now
      // (updateProperty recomputed every row already there; these rows are the rest).
      const zone = property.time_zone;
      const dated = zone === timeZone ? (event: DatedEvent) => event : (event: DatedEvent) => datedEvent(event, zone);
      const rows = (list: Array<[string, DatedEvent]>) => eventArrays(list.map(([id, event]) => [id, dated(event)]));
      const params = [calendarId, at, seen];
      if (inserts.length > 0) {
        await sql.run(INSERT, [...rows(inserts.map((event, i) => [write.insertIds?.[i] ?? newId("rsv"), event])), ...params]);
      }
      if (updates.length > 0) await sql.run(UPDATE, [...rows(updates.map(({ id, event }) => [id, event])), ...params]);
      if (cancels.length > 0) await sql.run(CANCEL, [at, cancels, calendarId]);
      // `at` is the sync's clock, read before the fetch; the feed's Last-Modified needs the commit's.
      if (changes > 0) await sql.run(TOUCH_PROPERTY_FEED, [new Date().toISOString(), calendarId]);
      // Webhook events commit with the rows they announce, or not at all (CONTRACT §11).
      await addToOutbox(sql, property.owner_id, events, { bookingChanges: changes > 0 && before?.first === false });
      if (cleaners) await addCleanerMails(sql, property.owner_id, cleaners);
    });
  }

  async function recordUnchangedSyncs(unchanged: readonly UnchangedSync[]): Promise<void> {
    // A calendar with an event to announce (calendar.recovered, rare) needs the outbox in the same transaction.
    const plain = unchanged.filter(({ events = [] }) => events.length === 0);
    const columns: unknown[][] = [[], [], [], [], [], []];
    for (const { calendarId, feed, syncedAt } of plain) {
      [calendarId, feed.etag, feed.lastModified, feed.contentHash, feed.lastFound, syncedAt.toISOString()]
        .forEach((value, i) => columns[i]!.push(value));
    }
    const announcing = unchanged.filter(({ events = [] }) => events.length > 0);
    if (plain.length > 0 && announcing.length === 0) {
      await db.run(FEED_STATES, columns);
      return;
    }
    await db.transaction(async (sql) => {
      if (plain.length > 0) await sql.run(FEED_STATES, columns);
      for (const { calendarId, feed, syncedAt, events = [] } of announcing) {
        const state = [calendarId, feed.etag, feed.lastModified, feed.contentHash, feed.lastFound, syncedAt.toISOString()];
        const [property] = await sql.query<{ owner_id: string }>(PROPERTY_ZONE, [calendarId]);
        if (property && (await sql.run(FEED_STATE, state)) > 0) await addToOutbox(sql, property.owner_id, events, { bookingChanges: false });
      }
    });
  }

  async function recordCalendarFailure({ calendarId, error, failedAt, events = [] }: CalendarFailure) {
    type Row = { consecutive_failures: number; failing_since: string | null; owner_id: string };
    const params = [error.code, error.message, failedAt.toISOString(), calendarId];
    const [row] = events.length === 0
      ? await db.query<Row>(FAILURE, params)
      : await db.transaction(async (sql) => {
          const rows = await sql.query<Row>(FAILURE, params);
          if (rows[0]) await addToOutbox(sql, rows[0].owner_id, events);
          return rows;
        });
    return { consecutiveFailures: row?.consecutive_failures ?? 0, failingSince: row?.failing_since ?? null };
  }

  async function recordCalendarFailures(failures: readonly CalendarFailure[]): Promise<CalendarStreak[]> {
    if (failures.length === 0) return [];
    type Row = { id: string; consecutive_failures: number; failing_since: string | null; owner_id: string };
    // Events (calendar.failed, rare) commit with the failures they announce: then a transaction, else one statement.
    const rows = failures.every(({ events = [] }) => events.length === 0)
      ? await db.query<Row>(FAILURES, failureArrays(failures))
      : await db.transaction(async (sql) => {
          const written = await sql.query<Row>(FAILURES, failureArrays(failures));
          const ownerOf = new Map(written.map((row) => [row.id, row.owner_id]));
          for (const { calendarId, events = [] } of failures) {
            const ownerId = ownerOf.get(calendarId);
            if (ownerId && events.length > 0) await addToOutbox(sql, ownerId, events);
          }
          return written;
        });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return failures.map(({ calendarId }) => {
      const row = byId.get(calendarId);
      return { consecutiveFailures: row?.consecutive_failures ?? 0, failingSince: row?.failing_since ?? null };
    });
  }
}

/** Column arrays of FAILURES. */
function failureArrays(failures: readonly CalendarFailure[]): string[][] {
  const columns: string[][] = [[], [], [], []];
  for (const { calendarId, error, failedAt } of failures) {
    [calendarId, error.code, error.message, failedAt.toISOString()].forEach((value, i) => columns[i]!.push(value));
  }
  return columns;
}

/** Events as the twelve column arrays of EVENT_ARRAYS. */
function eventArrays(rows: Array<[string, DatedEvent]>): Array<Array<string | null>> {
  const columns: Array<Array<string | null>> = Array.from({ length: 12 }, () => []);
  for (const [id, event] of rows) {
    const { uid, kind, start, end, summary, details, raw, arrival, departure, zone, echoOf } = event;
    const values = [
      id, uid, kind, start, end, summary, JSON.stringify(details), JSON.stringify(raw), arrival, departure, zone ?? null, echoOf ?? null,
    ];
    values.forEach((value, i) => columns[i]!.push(value));
  }
  return columns;
}

type Cleaners = { property: CleanerProperty; now: Date; before: TurnoverBookingInput[] };

const CLEANER_BOOKINGS = `
  SELECT r.id, c.property_id AS "propertyId", r.arrival, r.departure FROM reservations r JOIN calendars c ON c.id = r.calendar_id
  WHERE c.property_id = $1 AND r.status = 'active' AND r.kind = 'booking' AND r.echo_of IS NULL AND r.departure COLLATE "C" >= $2`;

/** The property and its bookings before the write, when it has cleaners to mail. */
async function cleanersBefore(sql: Sql, calendarId: string): Promise<Cleaners | null> {
  const [row] = await sql.query<CleanerPropertyRow>(`${CLEANER_PROPERTY_SELECT} $1`, [calendarId]);
  if (!row) return null;
  const property = toCleanerProperty(row);
  if (property.cleanerEmails.length === 0) return null;
  const now = new Date();
  return { property, now, before: await sql.query<TurnoverBookingInput>(CLEANER_BOOKINGS, [property.id, cleanerWindowStart(property, now)]) };
}

async function addCleanerMails(sql: Sql, ownerId: string, { property, now, before }: Cleaners): Promise<void> {
  const after = await sql.query<TurnoverBookingInput>(CLEANER_BOOKINGS, [property.id, cleanerWindowStart(property, now)]);
  const at = new Date().toISOString();
  for (const { to, tokenHash, mail } of cleanerMails(property, before, after, now)) {
    await sql.run("INSERT INTO cleaner_unsubscribes (token_hash, property_id, email, created_at) VALUES ($1, $2, $3, $4)", [tokenHash, property.id, to, at]);
    await addMail(sql, ownerId, mail);
  }
}
