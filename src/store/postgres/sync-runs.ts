// The sync history: one row per run, one result row per calendar attempted.
import type { ConflictAnnouncement } from "../../engine/store-port.js";
import type { SyncResponse } from "../../types.js";
import { newId } from "../../ids.js";
import { writing } from "../write-faults.js";
import { addToOutbox } from "./outbox.js";
import type { PgDatabase, Sql } from "./pool.js";
import { toSyncRun, type SyncRunDbRow } from "./rows.js";
import type { Store } from "../types.js";

export type SyncRunQueries = Pick<Store, "recordSyncRun" | "listSyncRuns" | "syncRunResponse">;

// One statement, so one transaction without BEGIN and COMMIT: the run, then one result row per calendar.
// The sub-select links the calendar only if it still exists: one removed during the run must not
// make the history (and with it the whole sync) fail on the foreign key.
const RECORD = `
  WITH run AS (
    INSERT INTO sync_runs (id, owner_id, trigger, dry_run, started_at, duration_ms, ok, synced_calendars,
      properties_checked, failed, response)
    VALUES ($1, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22) RETURNING id)
  INSERT INTO sync_run_results (run_id, position, calendar_id, property_id, source, status, found, created,
    updated, cancelled, error_code, error_message, http_status)
  SELECT run.id, t.position - 1, (SELECT id FROM calendars WHERE id = t.calendar_id), t.property_id, t.source, t.status,
    t.found, t.created, t.updated, t.cancelled, t.error_code, t.error_message, t.http_status
  FROM run, unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[], $8::int[], $9::int[], $10::text[],
    $11::text[], $12::int[]) WITH ORDINALITY
    AS t(calendar_id, property_id, source, status, found, created, updated, cancelled, error_code, error_message, http_status,
      position)
  ORDER BY t.position`;

/** The sync history queries of one database. */
export function syncRunQueries(db: PgDatabase): SyncRunQueries {
  return {
    async recordSyncRun(run) {
      const { response } = run;
      const runId = run.id ?? newId("run");
      const results = response.results.map(({ propertyId, source, result }, position) => [
        run.calendarIds[position] ?? null,
        propertyId,
        source,
        result.status,
        result.reservationsFound,
        result.reservationsCreated,
        result.reservationsUpdated,
        result.reservationsCancelled,
        result.error?.code ?? null,
        result.error?.message ?? null,
        result.error?.httpStatus ?? null,
      ]);
      const params = [
        runId, ...columnsOf(results, 11),
        run.ownerId, run.trigger, run.dryRun, run.startedAt.toISOString(), response.durationMs, response.ok,
        response.syncedCalendars, response.propertiesChecked, response.failed, JSON.stringify(response),
      ];
      const { events = [], conflicts } = run;
      if (events.length === 0 && !conflicts) {
        await writing(() => db.run(RECORD, params));
        return;
      }
      // The run's events (sync.completed, first-seen double bookings) commit with the run, or not at all.
      await writing(() => db.transaction(async (sql) => {
        await sql.run(RECORD, params);
        await addToOutbox(sql, run.ownerId, events);
        if (conflicts) await announceConflicts(sql, run.ownerId, conflicts);
      }));
    },
    async listSyncRuns(filter = {}) {
      const { ownerId = null, limit = 100 } = filter;
      const rows = await db.query<SyncRunDbRow>(
        "SELECT * FROM sync_runs WHERE ($1::text IS NULL OR owner_id = $1) ORDER BY started_at DESC, seq DESC LIMIT $2",
        [ownerId, limit],
      );
      return rows.map(toSyncRun);
    },
    async syncRunResponse(runId) {
      const [row] = await db.query<{ response: string | null }>("SELECT response FROM sync_runs WHERE id = $1", [runId]);
      return row?.response ? (JSON.parse(row.response) as SyncResponse) : undefined;
    },
  };
}

// Each double booking is announced once; one that is over is forgotten, so its return is news again. The
// insert decides what is new: of two runs racing, only the one whose row went in announces it.
async function announceConflicts(sql: Sql, ownerId: string, conflicts: readonly ConflictAnnouncement[]): Promise<void> {
  const keys = conflicts.map((conflict) => conflict.key);
  await sql.run("DELETE FROM webhook_conflicts WHERE owner_id = $1 AND key <> ALL($2::text[])", [ownerId, keys]);
  const fresh = new Set((await sql.query<{ key: string }>(
    `INSERT INTO webhook_conflicts (owner_id, key, first_seen_at)
     SELECT $1, t.key, $3 FROM unnest($2::text[]) WITH ORDINALITY AS t(key, n) ORDER BY t.n
     ON CONFLICT (owner_id, key) DO NOTHING RETURNING key`,
    [ownerId, keys, new Date().toISOString()],
  )).map((row) => row.key));
  const news = conflicts.filter(({ key }) => fresh.delete(key));
  await addToOutbox(sql, ownerId, news.map((conflict) => conflict.event));
}

/** Rows of `width` values as `width` column arrays, for unnest(). */
function columnsOf(rows: unknown[][], width: number): unknown[][] {
  return Array.from({ length: width }, (_, i) => rows.map((row) => row[i]));
}
