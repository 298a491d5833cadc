// API v1's resources on SQLite (CONTRACT §14): one reservation, a page of them, the rows of an availability
// answer, idempotency keys, and the check-then-write of a direct stay under BEGIN IMMEDIATE.
import type Database from "better-sqlite3";
import type { ReservationStatus } from "../../engine/model.js";
import { newId } from "../../ids.js";
import { runDirectStayWrite, type DirectStayOps, type HolderRow } from "../direct-stay-flow.js";
import { MAX_IDEMPOTENCY_KEYS, type IdempotencyRecord, type ResourceQueries } from "../direct-stay-types.js";
import type { ConnectionLock } from "./connection-lock.js";
import { outboxWriter } from "./outbox.js";
import { API_COLUMNS, toApiReservation, type ReservationDbRow } from "./rows.js";

// Only what the API shows: a feed event's raw properties and details are most of a row's bytes.
const RESERVATION_SELECT = `SELECT ${API_COLUMNS}, c.property_id, c.source FROM reservations r JOIN calendars c ON c.id = r.calendar_id`;

/** Prepares the resource statements of one database. */
export function directStayQueries(db: Database.Database, lock: ConnectionLock): ResourceQueries {
  const one = db.prepare<[string], ReservationDbRow & { owner_id: string; property_name: string }>(
    `SELECT r.*, c.property_id, c.source, p.owner_id, p.name AS property_name FROM reservations r
     JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id WHERE r.id = ?`,
  );
  type Maybe = string | null;
  type PageParams = [string, string, string, Maybe, Maybe, Maybe, Maybe, Maybe, Maybe, Maybe, Maybe, number];
  const page = db.prepare<PageParams, ReservationDbRow>(
    `${RESERVATION_SELECT} WHERE c.property_id = ? AND (? = 'all' OR r.status = ?)
       AND (? IS NULL OR r.departure > ?) AND (? IS NULL OR r.arrival < ?)
       AND (? IS NULL OR r.arrival > ? OR (r.arrival = ? AND r.id > ?))
     ORDER BY r.arrival, r.id LIMIT ?`,
  );
  const holders = db.prepare<[string, string, string], HolderRow>(
    `SELECT r.id, c.source, r.status, r.arrival, r.departure, r.echo_of AS echoOf, r.kind FROM reservations r
     JOIN calendars c ON c.id = r.calendar_id
     WHERE c.property_id = ? AND r.status = 'active' AND r.arrival < ? AND r.departure > ?`,
  );
  const statuses = db.prepare<[string], { id: string; status: ReservationStatus }>(
    "SELECT id, status FROM reservations WHERE id IN (SELECT value FROM json_each(?))",
  );
  const property = db.prepare<[string], { owner_id: string; name: string; buffer_nights: number }>("SELECT owner_id, name, buffer_nights FROM properties WHERE id = ?");
  const findKey = db.prepare<[string, string, string, string], { request_hash: string; status: number; body: string }>(
    "SELECT request_hash, status, body FROM idempotency_keys WHERE owner_id = ? AND route = ? AND key = ? AND created_at >= ?",
  );
  const forgetKeys = db.prepare<[string]>("DELETE FROM idempotency_keys WHERE created_at < ?");
  // Keys a client may coin by the thousand must not fill the disk: past the cap, the owner's oldest go.
  const forgetOldestKeys = db.prepare<[string, number]>(
    `DELETE FROM idempotency_keys WHERE rowid IN (
       SELECT rowid FROM idempotency_keys WHERE owner_id = ? ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ?)`,
  );
  const saveKey = db.prepare<[string, string, string, string, number, string, string]>(
    `INSERT INTO idempotency_keys (owner_id, route, key, request_hash, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (owner_id, route, key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
       body = excluded.body, created_at = excluded.created_at`,
  );
  const directCalendar = db.prepare<[string], { id: string }>("SELECT id FROM calendars WHERE property_id = ? AND source = 'direct'");
  const insertCalendar = db.prepare<[string, string, string]>(
    "INSERT INTO calendars (id, property_id, url, source, created_at) VALUES (?, ?, '', 'direct', ?)",
  );
  // A direct stay is an all-day event of its own calendar: uid is its id, start/end its nights.
  const insert = db.prepare<[string, string, string, string, string, string, string, string, string, string | null, string, string, string]>(
    `INSERT INTO reservations (id, calendar_id, uid, kind, status, start, "end", summary, details, raw, arrival, departure,
       note, created_at, updated_at, nights_seen_at)
     VALUES (?, ?, ?, ?, 'active', ?, ?, ?, '{}', '{}', ?, ?, ?, ?, ?, ?)`,
  );
  // Nights first seen now when they move (SET reads the row as it was), for echo detection.
  type UpdateParams = [string, string, string, string, string, string, string, string, string | null, string, string];
  const update = db.prepare<UpdateParams>(
    `UPDATE reservations SET nights_seen_at = CASE WHEN arrival = ? AND departure = ? THEN nights_seen_at ELSE ? END,
       start = ?, "end" = ?, arrival = ?, departure = ?, summary = ?, note = ?, updated_at = ?
     WHERE id = ? AND status = 'active'`,
  );
  const cancel = db.prepare<[string, string]>("UPDATE reservations SET status = 'cancelled', updated_at = ? WHERE id = ? AND status = 'active'");
  const outbox = outboxWriter(db);
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");

  const keptAnswer = (ownerId: string, route: string, key: string, since: Date): IdempotencyRecord | undefined => {
    const row = findKey.get(ownerId, route, key, since.toISOString());
    return row && { requestHash: row.request_hash, status: row.status, body: JSON.parse(row.body) as unknown };
  };

  const ops: DirectStayOps = {
    lockProperty(id) {
      const row = property.get(id);
      return row && { ownerId: row.owner_id, name: row.name, bufferNights: row.buffer_nights };
    },
    reservation(id) {
      const row = one.get(id);
      return row && { reservation: toApiReservation(row), ownerId: row.owner_id, propertyName: row.property_name };
    },
    findKey: (ownerId, claim) => keptAnswer(ownerId, claim.route, claim.key, claim.since),
    saveKey(ownerId, claim, answer, at) {
      forgetKeys.run(claim.since.toISOString());
      saveKey.run(ownerId, claim.route, claim.key, claim.requestHash, answer.status, JSON.stringify(answer.body), at.toISOString());
      forgetOldestKeys.run(ownerId, MAX_IDEMPOTENCY_KEYS);
    },
    holders: (propertyId, arrival, departure) => holders.all(propertyId, departure, arrival),
    statuses: (ids) => new Map(statuses.all(JSON.stringify(ids)).map((row) => [row.id, row.status])),
    directCalendar(propertyId, at) {
      const found = directCalendar.get(propertyId);
      if (found) return found.id;
      const id = newId("cal");
      insertCalendar.run(id, propertyId, at.toISOString());
      return id;
    },
    insert({ id, calendarId, stay: { stay } }, at) {
      const time = at.toISOString();
      const { kind, arrival, departure, summary, note } = stay;
      insert.run(id, calendarId, id, kind, arrival, departure, summary, arrival, departure, note, time, time, time);
    },
    update(id, { arrival, departure, summary, note }, at) {
      const time = at.toISOString();
      update.run(arrival, departure, time, arrival, departure, arrival, departure, summary, note, time, id);
    },
    cancel: (id, at) => void cancel.run(at.toISOString(), id),
    outbox: (ownerId, events) => outbox.add(ownerId, events),
  };

  return {
    async getReservation(id) {
      const row = one.get(id);
      return row && { ownerId: row.owner_id, reservation: toApiReservation(row) };
    },
    async reservationsPage({ propertyId, from = null, to = null, status, limit, after }) {
      const [arrival, id] = after ? [after.arrival, after.id] : [null, null];
      return page.all(propertyId, status, status, from, from, to, to, arrival, arrival, arrival, id, limit).map(toApiReservation);
    },
    findIdempotencyRecord: async ({ ownerId, route, key, since }) => keptAnswer(ownerId, route, key, since),
    // BEGIN IMMEDIATE takes the file's write lock first, so a second writer (this process or another) waits
    // for this commit and then sees its stay. The connection's lock keeps every other call of this process out.
    writeDirectStay: (write) =>
      lock.exclusive(async () => {
        begin.run();
        try {
          const outcome = await runDirectStayWrite(ops, write, () => newId("rsv"));
          commit.run();
          return outcome;
        } catch (error) {
          if (db.inTransaction) rollback.run();
          throw error;
        }
      }),
  };
}
