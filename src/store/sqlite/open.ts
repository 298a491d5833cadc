// openSqliteStore(): one SQLite file, tuned and migrated, behind the Store interface.
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { calendarQueries } from "./calendars.js";
import { createConnectionLock, lockedMethods } from "./connection-lock.js";
import { migrate } from "./migrations.js";
import { outboundFetchQueries } from "./outbound-fetches.js";
import { ownerQueries } from "./owners.js";
import { propertyQueries } from "./properties.js";
import { reservationQueries } from "./reservations.js";
import { sessionQueries } from "./sessions.js";
import { syncPortQueries } from "./sync-port.js";
import { syncRunQueries } from "./sync-runs.js";
import { tokenQueries } from "./tokens.js";
import { webhookQueries } from "./webhooks.js";
import type { Store } from "../types.js";

/** Opens the SQLite file at `path` (`":memory:"` works too), creating its directories and schema as needed. */
export function openSqliteStore(path: string): Store {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    // First, so that every statement below waits for a CLI or server holding the lock instead of failing.
    db.pragma("busy_timeout = 5000");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  const ping = db.prepare<[], { ok: number }>("SELECT 1 AS ok");
  const lock = createConnectionLock();

  const store: Store = {
    path,
    ...ownerQueries(db),
    ...tokenQueries(db),
    ...propertyQueries(db),
    ...calendarQueries(db),
    ...reservationQueries(db),
    ...outboundFetchQueries(db),
    ...syncPortQueries(db, lock),
    ...syncRunQueries(db),
    ...sessionQueries(db),
    ...webhookQueries(db),
    ping: async () => db.open && ping.get()?.ok === 1,
    async close() {
      if (db.open) db.close();
    },
  };
  // A big write keeps its transaction open across event-loop turns: every other call waits for it, but
  // /healthz's ping may read inside it (it only asks whether the file answers).
  return lockedMethods(store, lock, ["ping"]);
}
