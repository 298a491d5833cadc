// The engine's port (SyncStore) on SQLite: one transaction per calendar, statements prepared once.
import type Database from "better-sqlite3";
import type { FeedEvent } from "../engine/model.js";
import type { SyncStore } from "../engine/store-port.js";
import type { CalendarSource } from "../types.js";
import { newId } from "./ids.js";
import { toStoredReservation, type CalendarRow, type ReservationDbRow } from "./rows.js";

/** Prepares the statements the sync engine runs. */
export function syncQueries(db: Database.Database): SyncStore {
  const q = {
    propertyCount: db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM properties WHERE owner_id = ?"),
    ownerCalendars: db.prepare<[string], CalendarRow>(
      `SELECT c.*, p.owner_id, p.name AS property_name FROM calendars c JOIN properties p ON p.id = c.property_id
       WHERE p.owner_id = ? ORDER BY p.name, p.created_at, p.id, c.seq`,
    ),
    reservations: db.prepare<[string], ReservationDbRow>("SELECT * FROM reservations WHERE calendar_id = ?"),
    insert: db.prepare(
      `INSERT INTO reservations (id, calendar_id, uid, kind, status, start, "end", summary, details, raw, created_at, updated_at)
       VALUES (@id, @calendarId, @uid, @kind, 'active', @start, @end, @summary, @details, @raw, @at, @at)`,
    ),
    update: db.prepare(
      `UPDATE reservations SET uid = @uid, kind = @kind, status = 'active', start = @start, "end" = @end,
       summary = @summary, details = @details, raw = @raw, updated_at = @at WHERE id = @id AND calendar_id = @calendarId`,
    ),
    cancel: db.prepare(
      `UPDATE reservations SET status = 'cancelled', updated_at = ? WHERE id = ? AND calendar_id = ? AND status = 'active'`,
    ),
    feedState: db.prepare(
      `UPDATE calendars SET etag = @etag, last_modified = @lastModified, content_hash = @contentHash,
       last_found = @lastFound, last_status = 'success', last_error_code = NULL, last_error_message = NULL,
       last_synced_at = @at WHERE id = @calendarId`,
    ),
    failure: db.prepare(
      `UPDATE calendars SET last_status = 'failed', last_error_code = ?, last_error_message = ?, last_synced_at = ?
       WHERE id = ?`,
    ),
    insertRun: db.prepare(
      `INSERT INTO sync_runs (id, owner_id, trigger, dry_run, started_at, duration_ms, ok, synced_calendars,
       properties_checked, failed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertRunResult: db.prepare(
      `INSERT INTO sync_run_results (run_id, position, calendar_id, property_id, source, status, found, created,
       updated, cancelled, error_code, error_message, http_status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  };
  const eventParams = (event: FeedEvent) => ({
    uid: event.uid,
    kind: event.kind,
    start: event.start,
    end: event.end,
    summary: event.summary,
    details: JSON.stringify(event.details),
    raw: JSON.stringify(event.raw),
  });

  const apply = db.transaction((write: Parameters<SyncStore["applyCalendarSync"]>[0]) => {
    const at = write.syncedAt.toISOString();
    const { calendarId } = write;
    for (const event of write.inserts) q.insert.run({ id: newId("rsv"), calendarId, at, ...eventParams(event) });
    for (const { id, event } of write.updates) q.update.run({ id, calendarId, at, ...eventParams(event) });
    for (const id of write.cancels) q.cancel.run(at, id, calendarId);
    q.feedState.run({ calendarId, at, ...write.feed });
  });

  const recordRun = db.transaction((run: Parameters<SyncStore["recordSyncRun"]>[0]) => {
    const { response } = run;
    const id = newId("run");
    q.insertRun.run(
      id, run.ownerId, run.trigger, run.dryRun ? 1 : 0, run.startedAt.toISOString(), response.durationMs,
      response.ok ? 1 : 0, response.syncedCalendars, response.propertiesChecked, response.failed,
    );
    response.results.forEach((entry, position) => {
      const { result } = entry;
      q.insertRunResult.run(
        id, position, run.calendarIds[position] ?? null, entry.propertyId, entry.source, result.status,
        result.reservationsFound, result.reservationsCreated, result.reservationsUpdated, result.reservationsCancelled,
        result.error?.code ?? null, result.error?.message ?? null, result.error?.httpStatus ?? null,
      );
    });
  });

  return {
    async ownerCalendars(ownerId) {
      const propertiesChecked = q.propertyCount.get(ownerId)?.n ?? 0;
      const calendars = q.ownerCalendars.all(ownerId).map((row) => ({
        id: row.id,
        propertyId: row.property_id,
        propertyName: row.property_name,
        source: row.source as CalendarSource,
        url: row.url,
        etag: row.etag,
        lastModified: row.last_modified,
        contentHash: row.content_hash,
        lastFound: row.last_found,
      }));
      return { propertiesChecked, calendars };
    },
    async calendarReservations(calendarId) {
      return q.reservations.all(calendarId).map(toStoredReservation);
    },
    async applyCalendarSync(write) {
      apply(write);
    },
    async recordCalendarFailure({ calendarId, error, failedAt }) {
      q.failure.run(error.code, error.message, failedAt.toISOString(), calendarId);
    },
    async recordSyncRun(run) {
      recordRun(run);
    },
  };
}
