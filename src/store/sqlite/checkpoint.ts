// Checkpoints (copying the WAL's pages into the database file, and syncing it) run on a worker thread with a
// connection of its own, not on the thread that commits. SQLite's automatic checkpoint runs right after the
// COMMIT that crosses its threshold, on the committing thread: 50–70 ms after a 20,000-row write here, a
// stall of the server's event loop at the end of every big sync, and 12–15 ms every hundred calendars of a
// run. Checkpointing every 4,000 pages rather than 1,000 also copies the pages every commit rewrites (the
// calendar's and property's rows, index pages) a quarter as often: about 0.05 ms less CPU per calendar.
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";

/** WAL size past which a worker checkpoints: 4,000 pages of 4 KiB. */
const CHECKPOINT_BYTES = 4000 * 4096;
/** The connection's own automatic checkpoint, should no worker thread ever run: 16,000 pages. */
const FALLBACK_CHECKPOINT_PAGES = 16_000;
/** Writes between two looks at the WAL's size (a stat costs a few microseconds). */
const WRITES_PER_LOOK = 32;

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

/** The checkpoints of one connection. */
export interface Checkpointer {
  /** To call after each write: now and then looks at the WAL and has a worker checkpoint it when it is big. */
  wrote(): void;
  /** Runs `commit` (a big write's) with the automatic checkpoint off, then has a worker checkpoint. */
  commitWithoutCheckpoint(commit: () => void): void;
}

const checkpointers = new WeakMap<Database.Database, Checkpointer>();

/** The checkpointer of `db` (one per connection; from then on the connection checkpoints as above). */
export function checkpointerOf(db: Database.Database): Checkpointer {
  let checkpointer = checkpointers.get(db);
  if (!checkpointer) {
    checkpointer = db.memory ? { wrote() {}, commitWithoutCheckpoint: (commit) => commit() } : createCheckpointer(db);
    checkpointers.set(db, checkpointer);
  }
  return checkpointer;
}

function createCheckpointer(db: Database.Database): Checkpointer {
  db.pragma(`wal_autocheckpoint = ${FALLBACK_CHECKPOINT_PAGES}`);
  let writes = 0;
  let running = false;
  // Automatic checkpoints held off by big writes whose worker has not finished.
  let holding = 0;
  const autoPages = () => (holding > 0 ? 0 : FALLBACK_CHECKPOINT_PAGES);

  const checkpointElsewhere = (done: () => void) => {
    try {
      const worker = new Worker(WORKER, { eval: true, workerData: { driver, path: db.name } });
      running = true;
      // A checkpoint that could not run is made up for by the next one.
      worker.on("error", () => {});
      worker.on("exit", () => {
        running = false;
        done();
      });
      worker.unref();
    } catch {
      done();
    }
  };

  return {
    wrote() {
      if (running || ++writes % WRITES_PER_LOOK !== 0) return;
      const size = statSync(`${db.name}-wal`, { throwIfNoEntry: false })?.size ?? 0;
      if (size >= CHECKPOINT_BYTES) checkpointElsewhere(() => {});
    },
    commitWithoutCheckpoint(commit) {
      holding++;
      db.pragma("wal_autocheckpoint = 0");
      const release = () => {
        holding--;
        if (db.open) db.pragma(`wal_autocheckpoint = ${autoPages()}`);
      };
      try {
        commit();
      } catch (error) {
        release();
        throw error;
      }
      checkpointElsewhere(release);
    },
  };
}
