// One transaction that lets the event loop run while it lasts. better-sqlite3 cannot await inside
// db.transaction(), so a 20,000-row write (0.3–0.95 s) held a server's event loop from BEGIN to COMMIT;
// here the work is a generator, run in slices of a few milliseconds with a turn of the event loop between
// them, still between one BEGIN IMMEDIATE and one COMMIT (or ROLLBACK). Only under the connection's lock:
// nothing else may run statements on the connection while the transaction is open.
import type Database from "better-sqlite3";
import { runInSlices } from "../../engine/slices.js";
import { commitWithoutCheckpoint } from "./checkpoint.js";

const statements = new WeakMap<Database.Database, { begin: Database.Statement; commit: Database.Statement; rollback: Database.Statement }>();

/**
 * Runs `work` to its end inside one IMMEDIATE transaction, letting the event loop run between its steps
 * (each `yield`) every few milliseconds (`runInSlices`). Commits when it ends; rolls back and rethrows when it throws.
 */
export async function slicedTransaction(db: Database.Database, work: () => Iterator<unknown, void>): Promise<void> {
  let prepared = statements.get(db);
  if (!prepared) {
    prepared = { begin: db.prepare("BEGIN IMMEDIATE"), commit: db.prepare("COMMIT"), rollback: db.prepare("ROLLBACK") };
    statements.set(db, prepared);
  }
  const cacheSize = db.pragma("cache_size", { simple: true }) as number;
  // Shrinking the cache drops its clean pages too: reads after the write start cold, a fair price for the stall.
  db.pragma(`cache_size = ${SPILL_CACHE_SIZE}`);
  try {
    // Inside the try: a busy or read-only database fails BEGIN, and the connection must get its cache back then too.
    prepared.begin.run();
    await runInSlices(work());
    // The checkpoint of thousands of new pages would hold the event loop as long again: see checkpoint.ts.
    commitWithoutCheckpoint(db, () => prepared.commit.run());
  } catch (error) {
    // SQLite may have rolled back already (a full disk, an interrupted statement).
    if (db.inTransaction) prepared.rollback.run();
    throw error;
  } finally {
    db.pragma(`cache_size = ${cacheSize}`);
  }
}

/**
 * The page cache of a sliced transaction, in KiB (negative, as SQLite counts it). A transaction's changed pages
 * that are still in the cache go to the WAL at COMMIT, all at once: with better-sqlite3's 16 MiB cache, every page
 * of a 20,000-row write, 55–105 ms (load average 7). With a small cache SQLite writes them out as the slices fill
 * it, as frames no reader sees before the commit, and COMMIT took 14–31 ms in the same runs (bench/stall.js's feed,
 * alternating settings; 64 KiB to 2 MiB all alike).
 */
const SPILL_CACHE_SIZE = -512;
