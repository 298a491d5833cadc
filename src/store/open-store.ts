// openStore(): one SQLite file, tuned and migrated, behind the Store interface.
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { adminQueries } from "./admin.js";
import { migrate } from "./migrations.js";
import { toReservationRow, toSyncRun, type ReservationDbRow, type SyncRunDbRow } from "./rows.js";
import { syncQueries } from "./sync-queries.js";
import type { Store } from "./types.js";

/** Opens (creating directories and schema as needed) the database at `path`; `":memory:"` works too. */
export function openStore(path: string): Store {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }

  const reservations = db.prepare<
    [string | null, string | null, string | null, string | null, string | null, string | null],
    ReservationDbRow
  >(
    `SELECT r.*, c.property_id, c.source FROM reservations r
     JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id
     WHERE (? IS NULL OR p.owner_id = ?) AND (? IS NULL OR c.property_id = ?) AND (? IS NULL OR r.status = ?)
     ORDER BY p.name, p.id, r.start, c.seq, r.uid`,
  );
  const runs = db.prepare<[string | null, string | null, number], SyncRunDbRow>(
    `SELECT * FROM sync_runs WHERE (? IS NULL OR owner_id = ?) ORDER BY started_at DESC, rowid DESC LIMIT ?`,
  );
  const ping = db.prepare<[], { ok: number }>("SELECT 1 AS ok");

  return {
    path,
    ...adminQueries(db),
    ...syncQueries(db),
    listReservations(filter = {}) {
      const { ownerId = null, propertyId = null, status = null } = filter;
      return reservations.all(ownerId, ownerId, propertyId, propertyId, status, status).map(toReservationRow);
    },
    listSyncRuns(filter = {}) {
      const { ownerId = null, limit = 100 } = filter;
      return runs.all(ownerId, ownerId, limit).map(toSyncRun);
    },
    ping: () => db.open && ping.get()?.ok === 1,
    close: () => {
      if (db.open) db.close();
    },
  };
}
