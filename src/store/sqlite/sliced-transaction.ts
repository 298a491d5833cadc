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
  prepared.begin.run();
  try {
    await runInSlices(work());
    // The checkpoint of thousands of new pages would hold the event loop as long again: see checkpoint.ts.
    commitWithoutCheckpoint(db, () => prepared.commit.run());
  } catch (error) {
    // SQLite may have rolled back already (a full disk, an interrupted statement).
    if (db.inTransaction) prepared.rollback.run();
    throw error;
  }
}
