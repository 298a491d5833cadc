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
import type { ConnectionLock } from "./connection-lock.js";
import { outboxWriter } from "./outbox.js";
import { mailWriter } from "./mail.js";
import { CLEANER_PROPERTY_SELECT, cleanerMails, cleanerWindowStart, toCleanerProperty, type CleanerProperty, type CleanerPropertyRow } from "../cleaner-mails.js";
import type { TurnoverBookingInput } from "../../engine/turnovers.js";
import { slicedTransaction } from "./sliced-transaction.js";
import { writing } from "../write-faults.js";
import { toStoredReservation, type CalendarRow, type ReservationDbRow } from "./rows.js";
import type { Store } from "../types.js";
import type { UnchangedSync } from "../../engine/store-port.js";

export type SyncPortQueries = Pick<Store,
  "ownerCalendars" | "calendarReservations" | "applyCalendarSync" | "recordUnchangedSyncs" | "recordCalendarFailure"
  | "recordCalendarFailures" | "propertyActiveBookings">;

/** Prepares the statements the sync engine runs on one database (the history is in sync-runs.ts). */
export function syncPortQueries(db: Database.Database, lock: ConnectionLock): SyncPortQueries {
  const propertyCount = db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM properties WHERE owner_id = ?");
  const calendars = db.prepare<[string], CalendarRow>(`${CALENDAR_SELECT} WHERE p.owner_id = ? AND c.source <> 'direct' ORDER BY ${CALENDAR_ORDER}`);
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
  // A success ends the calendar's failure streak. RETURNING reads, in the same statement, what the rest of the
  // write needs: the property (its feed is touched), its zone now, and its owner (for the outbox).
  const feedState = db.prepare<[string | null, string | null, string | null, number, string, string], WrittenCalendar>(
    `UPDATE calendars SET etag = ?, last_modified = ?, content_hash = ?, last_found = ?, last_status = 'success',
     last_error_code = NULL, last_error_message = NULL, last_synced_at = ?, consecutive_failures = 0, failing_since = NULL
     WHERE id = ?
     RETURNING property_id, (SELECT time_zone FROM properties WHERE id = property_id) AS time_zone,
     (SELECT owner_id FROM properties WHERE id = property_id) AS owner_id`,
  );
  // Double-booking detection reads every active booking of a property after each run: its calendars once
  // (channel, property name and zone), then five columns a booking, as arrays (half the time of one join
  // returning objects of eleven).
  const propertyCalendars = db
    .prepare<[string], [id: string, source: string, name: string, timeZone: string | null]>(
      "SELECT c.id, c.source, p.name, p.time_zone FROM calendars c JOIN properties p ON p.id = c.property_id WHERE c.property_id = ?",
    )
    .raw(true);
  const activeBookings = db
    .prepare<[string], [id: string, calendarId: string, arrival: string, departure: string, summary: string]>(
      `SELECT r.id, r.calendar_id, r.arrival, r.departure, r.summary FROM reservations r
       WHERE r.calendar_id IN (SELECT id FROM calendars WHERE property_id = ?) AND r.status = 'active' AND r.kind = 'booking'`,
    )
    .raw(true);
  const readBookings = db.transaction((propertyId: string): ConflictInput[] => {
    const calendars = propertyCalendars.all(propertyId);
    // Two bookings of one calendar are never a double booking: a property with one calendar (a single
    // channel's 20,000-event feed) need not be read at all.
    if (calendars.length < 2) return [];
    const calendarOf = new Map(calendars.map(([id, source, name, timeZone]) => [id, { source: source as CalendarSource, name, timeZone }]));
    return activeBookings.all(propertyId).map(([id, calendarId, arrival, departure, summary]) => {
      const calendar = calendarOf.get(calendarId)!;
      return {
        id,
        propertyId,
        propertyName: calendar.name,
        propertyTimeZone: calendar.timeZone,
        calendarId,
        source: calendar.source,
        kind: "booking",
        status: "active",
        arrival,
        departure,
        summary,
      };
    });
  });
  // Stamped with the commit's clock, not the sync's (read before the fetch): see TOUCH_PROPERTY_FEED.
  const touchProperty = db.prepare<[string, string]>("UPDATE properties SET feed_changed_at = ? WHERE id = ?");
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
  // Read before the write: a calendar that never succeeded and holds no rows is on its first sync, whose
  // backlog is no news to mail about (a failed first attempt leaves no rows and no success either).
  const firstSync = db.prepare<[string, string], { first: number }>(
    `SELECT (last_status IS NULL OR last_status <> 'success') AND NOT EXISTS (SELECT 1 FROM reservations WHERE calendar_id = ?) AS first
     FROM calendars WHERE id = ?`,
  );
  // Cleaners by mail (CONTRACT §18): the property's turnovers before and after the write, in its transaction.
  const mails = mailWriter(db);
  const cleanerProperty = db.prepare<[string], CleanerPropertyRow>(`${CLEANER_PROPERTY_SELECT} ?`);
  const cleanerBookings = db.prepare<[string, string], TurnoverBookingInput>(
    `SELECT r.id, c.property_id AS propertyId, r.arrival, r.departure FROM reservations r JOIN calendars c ON c.id = r.calendar_id
     WHERE c.property_id = ? AND r.status = 'active' AND r.kind = 'booking' AND r.echo_of IS NULL AND r.departure >= ?`,
  );
  const insertUnsubscribe = db.prepare<[string, string, string, string]>(
    "INSERT INTO cleaner_unsubscribes (token_hash, property_id, email, created_at) VALUES (?, ?, ?, ?)",
  );
  const cleanersBefore = (calendarId: string, write: CalendarWrite, first: boolean): WriteContext["cleaners"] => {
    if (first || rowsOf(write) === 0) return null;
    const row = cleanerProperty.get(calendarId);
    if (!row) return null;
    const property = toCleanerProperty(row);
    if (property.cleanerEmails.length === 0) return null;
    const now = new Date();
    return { property, now, before: cleanerBookings.all(property.id, cleanerWindowStart(property, now)) };
  };
  const addCleanerMails = (ownerId: string, cleaners: NonNullable<WriteContext["cleaners"]>) => {
    const { property, now, before } = cleaners;
    const after = cleanerBookings.all(property.id, cleanerWindowStart(property, now));
    const at = new Date().toISOString();
    for (const { to, tokenHash, mail } of cleanerMails(property, before, after, now)) {
      insertUnsubscribe.run(tokenHash, property.id, to, at);
      mails.add(ownerId, mail);
    }
  };

  // One calendar's write in three parts, each run inside the caller's transaction: its feed state (nothing
  // more when the calendar was removed while its feed was fetched), its rows (any range of them), the rest.
  const begin = (write: CalendarWrite): WriteContext | null => {
    const { calendarId, feed, syncedAt, seenAt = syncedAt, timeZone = null } = write;
    const at = syncedAt.toISOString();
    const first = firstSync.get(calendarId, calendarId)?.first === 1;
    const calendar = feedState.get(feed.etag, feed.lastModified, feed.contentHash, feed.lastFound, at, calendarId);
    if (!calendar) return null;
    // `property update --timezone` committed while this feed was fetched: its nights follow the zone held now
    // (updateProperty recomputed every row already there; these rows are the rest).
    const zone = calendar.time_zone;
    const dated = zone === timeZone ? (event: DatedEvent) => event : (event: DatedEvent) => datedEvent(event, zone);
    return { calendar, at, seen: seenAt.toISOString(), dated, first, cleaners: cleanersBefore(calendarId, write, first) };
  };
  const writeRows = ({ at, seen, dated }: WriteContext, write: CalendarWrite, from: number, to: number) => {
    const { calendarId, inserts, updates, cancels } = write;
    for (let i = from; i < to; i++) {
      if (i < inserts.length) {
        insert.run(write.insertIds?.[i] ?? newId("rsv"), calendarId, ...eventParams(dated(inserts[i]!)), at, at, seen);
        continue;
      }
      const u = i - inserts.length;
      if (u < updates.length) {
        const row = dated(updates[u]!.event);
        update.run(row.arrival, row.departure, seen, ...eventParams(row), at, updates[u]!.id, calendarId);
      } else cancel.run(at, cancels[u - updates.length]!, calendarId);
    }
  };
  const finish = ({ calendar, first, cleaners }: WriteContext, write: CalendarWrite) => {
    if (cleaners) addCleanerMails(calendar.owner_id, cleaners);
    if (rowsOf(write) > 0) touchProperty.run(new Date().toISOString(), calendar.property_id);
    // Webhook events (and the owner's mails) commit with the rows they announce, or not at all (CONTRACT §11, §16).
    // A write with rows has one per change, built only for an owner with an endpoint or mail switched on; one
    // without has at most calendar.recovered.
    outbox.add(calendar.owner_id, rowsOf(write) > 0 ? () => write.events ?? [] : (write.events ?? []), { bookingChanges: !first && rowsOf(write) > 0 });
  };
  const apply = db.transaction((write: CalendarWrite) => {
    const context = begin(write);
    if (!context) return;
    writeRows(context, write, 0, rowsOf(write));
    finish(context, write);
  });

  // Many unchanged calendars, one transaction: what `apply` writes for a write without rows, row by row.
  const recordUnchanged = db.transaction((unchanged: readonly UnchangedSync[]) => {
    for (const { calendarId, feed, syncedAt, events = [] } of unchanged) {
      const calendar = feedState.get(feed.etag, feed.lastModified, feed.contentHash, feed.lastFound, syncedAt.toISOString(), calendarId);
      if (calendar) outbox.add(calendar.owner_id, events, { bookingChanges: false });
    }
  });

  const failOne = ({ calendarId, error, failedAt, events = [] }: CalendarFailure) => {
    const at = failedAt.toISOString();
    const row = failure.get(error.code, error.message, at, at, calendarId);
    if (row) outbox.addForCalendar(calendarId, events);
    return { consecutiveFailures: row?.consecutive_failures ?? 0, failingSince: row?.failing_since ?? null };
  };
  const recordFailure = db.transaction(failOne);
  // Many failed attempts, one transaction: each as `recordFailure` writes it.
  const recordFailures = db.transaction((failures: readonly CalendarFailure[]) => failures.map(failOne));

  return {
    async ownerCalendars(ownerId) {
      return readOwner(ownerId);
    },
    async calendarReservations(calendarId) {
      return reservations.all(calendarId).map(toStoredReservation);
    },
    async applyCalendarSync(write) {
      if (rowsOf(write) <= ROWS_AT_ONCE) return writing(() => apply(write));
      // A big write lets the event loop run between slices of rows, still in one transaction (CONTRACT §4).
      await writing(() => lock.exclusive(() =>
        slicedTransaction(db, function* () {
          const context = begin(write);
          if (!context) return;
          for (let at = 0; at < rowsOf(write); at += ROWS_PER_STEP) {
            writeRows(context, write, at, Math.min(at + ROWS_PER_STEP, rowsOf(write)));
            yield;
          }
          finish(context, write);
        }),
      ));
    },
    async recordUnchangedSyncs(unchanged) {
      if (unchanged.length > 0) await writing(() => recordUnchanged(unchanged));
    },
    async recordCalendarFailure(failed) {
      return writing(() => recordFailure(failed));
    },
    async recordCalendarFailures(failed) {
      return failed.length === 0 ? [] : writing(() => recordFailures(failed));
    },
    async propertyActiveBookings(propertyId) {
      return readBookings(propertyId);
    },
  };
}

/** Rows a write commits in one go; a bigger one is written in slices (about 12 µs a row here, so 2,000 is 25 ms). */
const ROWS_AT_ONCE = 2000;
/** Rows written between two looks at the clock in a sliced write. */
const ROWS_PER_STEP = 100;

/** Rows one write inserts, updates or cancels. */
function rowsOf(write: CalendarWrite): number {
  return write.inserts.length + write.updates.length + write.cancels.length;
}

/** What the feed-state UPDATE returns of the calendar it wrote. */
interface WrittenCalendar {
  property_id: string;
  time_zone: string | null;
  owner_id: string;
}

/** What writing one calendar's rows needs, read once at its start. */
interface WriteContext {
  calendar: WrittenCalendar;
  at: string;
  seen: string;
  dated: (event: DatedEvent) => DatedEvent;
  /** The calendar's first sync (its backlog): no booking mail, no cleaner mail. */
  first: boolean;
  /** The property and its bookings before the write, when it has cleaners to mail. */
  cleaners: { property: CleanerProperty; now: Date; before: TurnoverBookingInput[] } | null;
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
