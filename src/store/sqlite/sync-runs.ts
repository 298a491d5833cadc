// The sync history: one row per run, one result row per calendar attempted.
import type Database from "better-sqlite3";
import { writing } from "../write-faults.js";
import type { SyncRunRecord } from "../../engine/store-port.js";
import type { SyncResponse } from "../../types.js";
import { newId } from "../../ids.js";
import { outboxWriter } from "./outbox.js";
import { toSyncRun, type SyncRunDbRow } from "./rows.js";
import type { Store } from "../types.js";

export type SyncRunQueries = Pick<Store, "recordSyncRun" | "listSyncRuns" | "syncRunResponse">;

/** Prepares the sync history statements of one database. */
export function syncRunQueries(db: Database.Database): SyncRunQueries {
  const insertRun = db.prepare(
    `INSERT INTO sync_runs (id, owner_id, trigger, dry_run, started_at, duration_ms, ok, synced_calendars,
     properties_checked, failed, response)
     VALUES (@id, @ownerId, @trigger, @dryRun, @startedAt, @durationMs, @ok, @syncedCalendars, @propertiesChecked, @failed,
     @response)`,
  );
  // The sub-select links the calendar only if it still exists: one removed during the run must not
  // make the history (and with it the whole sync) fail on the foreign key.
  const insertResult = db.prepare(
    `INSERT INTO sync_run_results (run_id, position, calendar_id, property_id, source, status, found, created,
     updated, cancelled, error_code, error_message, http_status)
     VALUES (@runId, @position, (SELECT id FROM calendars WHERE id = @calendarId), @propertyId, @source, @status,
     @found, @created, @updated, @cancelled, @errorCode, @errorMessage, @httpStatus)`,
  );
  const list = db.prepare<[string | null, string | null, number], SyncRunDbRow>(
    `SELECT * FROM sync_runs WHERE (? IS NULL OR owner_id = ?) ORDER BY started_at DESC, rowid DESC LIMIT ?`,
  );
  const responseOf = db.prepare<[string], { response: string | null }>("SELECT response FROM sync_runs WHERE id = ?");

  const outbox = outboxWriter(db);
  const announced = db.prepare<[string], { key: string }>("SELECT key FROM webhook_conflicts WHERE owner_id = ?");
  const announce = db.prepare<[string, string, string]>("INSERT INTO webhook_conflicts (owner_id, key, first_seen_at) VALUES (?, ?, ?)");
  const forget = db.prepare<[string, string]>("DELETE FROM webhook_conflicts WHERE owner_id = ? AND key = ?");

  // Each double booking is announced once; one that is over is forgotten, so its return is news again.
  const announceConflicts = (ownerId: string, conflicts: NonNullable<SyncRunRecord["conflicts"]>) => {
    const known = new Set(announced.all(ownerId).map((row) => row.key));
    const current = new Set(conflicts.map((conflict) => conflict.key));
    for (const key of known) if (!current.has(key)) forget.run(ownerId, key);
    const at = new Date().toISOString();
    for (const { key, event } of conflicts) {
      if (known.has(key)) continue;
      known.add(key);
      announce.run(ownerId, key, at);
      outbox.add(ownerId, [event]);
    }
  };

  const record = db.transaction((run: SyncRunRecord) => {
    const { response } = run;
    const runId = run.id ?? newId("run");
    insertRun.run({
      id: runId,
      ownerId: run.ownerId,
      trigger: run.trigger,
      dryRun: run.dryRun ? 1 : 0,
      startedAt: run.startedAt.toISOString(),
      durationMs: response.durationMs,
      ok: response.ok ? 1 : 0,
      syncedCalendars: response.syncedCalendars,
      propertiesChecked: response.propertiesChecked,
      failed: response.failed,
      response: JSON.stringify(response),
    });
    response.results.forEach(({ propertyId, source, result }, position) => {
      insertResult.run({
        runId,
        position,
        calendarId: run.calendarIds[position] ?? null,
        propertyId,
        source,
        status: result.status,
        found: result.reservationsFound,
        created: result.reservationsCreated,
        updated: result.reservationsUpdated,
        cancelled: result.reservationsCancelled,
        errorCode: result.error?.code ?? null,
        errorMessage: result.error?.message ?? null,
        httpStatus: result.error?.httpStatus ?? null,
      });
    });
    outbox.add(run.ownerId, run.events ?? []);
    if (run.conflicts) announceConflicts(run.ownerId, run.conflicts);
  });

  return {
    async recordSyncRun(run) {
      await writing(() => record(run));
    },
    async listSyncRuns(filter = {}) {
      const { ownerId = null, limit = 100 } = filter;
      return list.all(ownerId, ownerId, limit).map(toSyncRun);
    },
    async syncRunResponse(runId) {
      const text = responseOf.get(runId)?.response;
      return text ? (JSON.parse(text) as SyncResponse) : undefined;
    },
  };
}
