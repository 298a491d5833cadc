// API v1's resources on PostgreSQL (CONTRACT §14): one reservation, a page of them, the rows of an availability
// answer, idempotency keys, and the check-then-write of a direct stay with the property row locked, so that
// two instances writing overlapping stays at once store exactly one.
import type { ReservationStatus } from "../../engine/model.js";
import { newId } from "../../ids.js";
import { runDirectStayWrite, type DirectStayOps, type HolderRow } from "../direct-stay-flow.js";
import { MAX_IDEMPOTENCY_KEYS, type IdempotencyRecord, type ResourceQueries } from "../direct-stay-types.js";
import { addToOutbox } from "./outbox.js";
import type { PgDatabase, Sql } from "./pool.js";
import { API_COLUMNS, toApiReservation, type ReservationDbRow } from "./rows.js";

const ONE = `
  SELECT r.*, c.property_id, c.source, p.owner_id, p.name AS property_name FROM reservations r
  JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id WHERE r.id = $1`;
// Ordered as JavaScript compares strings (COLLATE "C"), so that the cursor's "after" agrees with the order.
const PAGE = `
  SELECT ${API_COLUMNS}, c.property_id, c.source FROM reservations r JOIN calendars c ON c.id = r.calendar_id
  WHERE c.property_id = $1 AND ($2 = 'all' OR r.status = $2)
    AND ($3::text IS NULL OR r.departure > $3) AND ($4::text IS NULL OR r.arrival < $4)
    AND ($5::text IS NULL OR r.arrival COLLATE "C" > $5 OR (r.arrival = $5 AND r.id COLLATE "C" > $6))
  ORDER BY r.arrival COLLATE "C", r.id COLLATE "C" LIMIT $7`;
const HOLDERS = `
  SELECT r.id, c.source, r.status, r.arrival, r.departure, r.echo_of AS "echoOf", r.kind FROM reservations r
  JOIN calendars c ON c.id = r.calendar_id
  WHERE c.property_id = $1 AND r.status = 'active' AND r.arrival < $2 AND r.departure > $3`;
const STATUSES = "SELECT id, status FROM reservations WHERE id = ANY($1::text[])";
// FOR NO KEY UPDATE: direct-stay writers of one property wait for each other, while channel syncs (which
// take FOR KEY SHARE on the property) go on beside them.
const LOCK_PROPERTY = "SELECT owner_id, name, buffer_nights FROM properties WHERE id = $1 FOR NO KEY UPDATE";
const FIND_KEY = `
  SELECT request_hash, status, body FROM idempotency_keys WHERE owner_id = $1 AND route = $2 AND key = $3 AND created_at >= $4`;
const SAVE_KEY = `
  INSERT INTO idempotency_keys (owner_id, route, key, request_hash, status, body, created_at) VALUES ($1, $2, $3, $4, $5, $6::json, $7)
  ON CONFLICT (owner_id, route, key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
    body = excluded.body, created_at = excluded.created_at`;
// Keys a client may coin by the thousand must not fill the disk: past the cap, the owner's oldest go.
const FORGET_OLDEST_KEYS = `
  DELETE FROM idempotency_keys WHERE seq IN (
    SELECT seq FROM idempotency_keys WHERE owner_id = $1 ORDER BY created_at DESC, seq DESC OFFSET $2)`;
// A direct stay is an all-day event of its own calendar: uid is its id, start/end its nights.
const INSERT = `
  INSERT INTO reservations (id, calendar_id, uid, kind, status, start, "end", summary, details, raw, arrival, departure,
    note, created_at, updated_at, nights_seen_at)
  VALUES ($1, $2, $1, $3, 'active', $4, $5, $6, '{}', '{}', $4, $5, $7, $8, $8, $8)`;
// Nights first seen now when they move (SET reads the row as it was), for echo detection.
const UPDATE = `
  UPDATE reservations SET nights_seen_at = CASE WHEN arrival = $2 AND departure = $3 THEN nights_seen_at ELSE $6 END,
    start = $2, "end" = $3, arrival = $2, departure = $3, summary = $4, note = $5, updated_at = $6
  WHERE id = $1 AND status = 'active'`;

/** The resource queries of one database. */
export function directStayQueries(db: PgDatabase): ResourceQueries {
  const keptAnswer = async (sql: Sql, ownerId: string, route: string, key: string, since: Date): Promise<IdempotencyRecord | undefined> => {
    const [row] = await sql.query<{ request_hash: string; status: number; body: string }>(FIND_KEY, [ownerId, route, key, since.toISOString()]);
    return row && { requestHash: row.request_hash, status: row.status, body: JSON.parse(row.body) as unknown };
  };
  const statuses = async (sql: Sql, ids: string[]) =>
    new Map((await sql.query<{ id: string; status: ReservationStatus }>(STATUSES, [ids])).map((row) => [row.id, row.status]));

  const opsOf = (sql: Sql): DirectStayOps => ({
    async lockProperty(id) {
      const [row] = await sql.query<{ owner_id: string; name: string; buffer_nights: number }>(LOCK_PROPERTY, [id]);
      return row && { ownerId: row.owner_id, name: row.name, bufferNights: Number(row.buffer_nights) };
    },
    async reservation(id) {
      const [row] = await sql.query<ReservationDbRow & { owner_id: string; property_name: string }>(ONE, [id]);
      return row && { reservation: toApiReservation(row), ownerId: row.owner_id, propertyName: row.property_name };
    },
    findKey: (ownerId, claim) => keptAnswer(sql, ownerId, claim.route, claim.key, claim.since),
    async saveKey(ownerId, claim, answer, at) {
      await sql.run("DELETE FROM idempotency_keys WHERE created_at < $1", [claim.since.toISOString()]);
      await sql.run(SAVE_KEY, [ownerId, claim.route, claim.key, claim.requestHash, answer.status, JSON.stringify(answer.body), at.toISOString()]);
      await sql.run(FORGET_OLDEST_KEYS, [ownerId, MAX_IDEMPOTENCY_KEYS]);
    },
    holders: (propertyId, arrival, departure) => sql.query<HolderRow>(HOLDERS, [propertyId, departure, arrival]),
    statuses: (ids) => statuses(sql, ids),
    async directCalendar(propertyId, at) {
      const [found] = await sql.query<{ id: string }>("SELECT id FROM calendars WHERE property_id = $1 AND source = 'direct'", [propertyId]);
      if (found) return found.id;
      const id = newId("cal");
      await sql.run("INSERT INTO calendars (id, property_id, url, source, created_at) VALUES ($1, $2, '', 'direct', $3)", [id, propertyId, at.toISOString()]);
      return id;
    },
    async insert({ id, calendarId, stay: { stay } }, at) {
      const { kind, arrival, departure, summary, note } = stay;
      await sql.run(INSERT, [id, calendarId, kind, arrival, departure, summary, note, at.toISOString()]);
    },
    async update(id, { arrival, departure, summary, note }, at) {
      await sql.run(UPDATE, [id, arrival, departure, summary, note, at.toISOString()]);
    },
    async cancel(id, at) {
      await sql.run("UPDATE reservations SET status = 'cancelled', updated_at = $1 WHERE id = $2 AND status = 'active'", [at.toISOString(), id]);
    },
    outbox: (ownerId, events) => addToOutbox(sql, ownerId, events),
  });

  return {
    async getReservation(id) {
      const [row] = await db.query<ReservationDbRow & { owner_id: string }>(ONE, [id]);
      return row && { ownerId: row.owner_id, reservation: toApiReservation(row) };
    },
    async reservationsPage({ propertyId, from = null, to = null, status, limit, after }) {
      const rows = await db.query<ReservationDbRow>(PAGE, [propertyId, status, from, to, after?.arrival ?? null, after?.id ?? null, limit]);
      return rows.map(toApiReservation);
    },
    findIdempotencyRecord: ({ ownerId, route, key, since }) => keptAnswer(db, ownerId, route, key, since),
    writeDirectStay: (write) => db.transaction((sql) => runDirectStayWrite(opsOf(sql), write, () => newId("rsv"))),
  };
}
