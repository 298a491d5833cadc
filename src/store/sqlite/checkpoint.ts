// After a big write the WAL holds thousands of new pages, and SQLite's automatic checkpoint copies them into
// the database file (and syncs it) right after COMMIT, on the committing thread: 50–70 ms for 20,000 rows
// here, a stall of the server's event loop at the end of every big sync. So a big write commits with the
// automatic checkpoint off, and a worker thread with a connection of its own checkpoints instead; the
// automatic one comes back on once that worker is done (small commits meanwhile only append to the WAL).
//
// Only big writes: a worker checkpointing while the event loop keeps committing never catches up with the
// last frame, so SQLite never starts the WAL afresh (it grew to 60 MB over a 1,000-calendar run, and every
// read got slower); the connection's own checkpoint, right after its commit, always does.
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { driverEntry as driver } from "./driver.js";

// A worker of a few lines, at a low priority (see engine/parse-worker.ts: the event loop should win the CPU).
const WORKER = `
const { workerData } = require("node:worker_threads");
try { require("node:os").setPriority(Number(require("node:fs").readlinkSync("/proc/thread-self").split("/").pop()), 10); } catch {}
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
try { db.pragma("busy_timeout = 5000"); db.pragma("wal_checkpoint(PASSIVE)"); } finally { db.close(); }
`;

/** Per connection: the automatic checkpoint's own setting, and how many big writes hold it off. */
const held = new WeakMap<Database.Database, { pages: number; writes: number }>();

/** Runs `commit` (a big write's) with `db`'s automatic checkpoint off, then has a worker thread checkpoint. */
export function commitWithoutCheckpoint(db: Database.Database, commit: () => void): void {
  if (db.memory) return commit();
  let state = held.get(db);
  if (!state) {
    state = { pages: db.pragma("wal_autocheckpoint", { simple: true }) as number, writes: 0 };
    held.set(db, state);
  }
  const current = state;
  current.writes++;
  db.pragma("wal_autocheckpoint = 0");
  const release = () => {
    if (--current.writes > 0) return;
    held.delete(db);
    if (db.open) db.pragma(`wal_autocheckpoint = ${current.pages}`);
  };
  try {
    commit();
  } catch (error) {
    release();
    throw error;
  }
  try {
    const worker = new Worker(WORKER, { eval: true, workerData: { driver, path: db.name } });
    // A checkpoint that could not run is made up for by the next automatic one.
    worker.on("error", () => {});
    worker.on("exit", release);
    worker.unref();
  } catch {
    release();
  }
}
