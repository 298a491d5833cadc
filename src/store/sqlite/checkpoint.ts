// After a big write the WAL holds thousands of new pages, and SQLite's automatic checkpoint copies them into
// the database file (and syncs it) right after COMMIT, on the committing thread: 50–70 ms for 20,000 rows
// here, a stall of the server's event loop at the end of every big sync. So a big write commits with the
// automatic checkpoint off, and a worker thread with a connection of its own checkpoints instead; the
// automatic one comes back on once that worker is done (small commits meanwhile only append to the WAL).
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";

/** The driver's entry, resolved here so that the worker finds it wherever calsync is installed. */
const driver = createRequire(import.meta.url).resolve("better-sqlite3");

// A worker of a few lines, at a low priority (see engine/parse-worker.ts: the event loop should win the CPU).
const WORKER = `
const { workerData } = require("node:worker_threads");
try { require("node:os").setPriority(Number(require("node:fs").readlinkSync("/proc/thread-self").split("/").pop()), 10); } catch {}
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
try { db.pragma("busy_timeout = 5000"); db.pragma("wal_checkpoint(PASSIVE)"); } finally { db.close(); }
`;

const pending = new WeakMap<Database.Database, { count: number; pages: number }>();

/** Runs `commit` with `db`'s automatic checkpoint off, then checkpoints on a worker thread. */
export function commitWithoutCheckpoint(db: Database.Database, commit: () => void): void {
  if (db.memory) return commit();
  let state = pending.get(db);
  if (!state) {
    state = { count: 0, pages: db.pragma("wal_autocheckpoint", { simple: true }) as number };
    pending.set(db, state);
  }
  db.pragma("wal_autocheckpoint = 0");
  state.count++;
  const done = () => {
    if (--state.count > 0) return;
    pending.delete(db);
    if (db.open) db.pragma(`wal_autocheckpoint = ${state.pages}`);
  };
  try {
    commit();
  } catch (error) {
    done();
    throw error;
  }
  try {
    const worker = new Worker(WORKER, { eval: true, workerData: { driver, path: db.name } });
    // A checkpoint that could not run is made up for by the next automatic one.
    worker.on("error", () => {});
    worker.on("exit", done);
    worker.unref();
  } catch {
    done();
  }
}
