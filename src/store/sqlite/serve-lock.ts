// Which `calsync serve` holds a SQLite file: a small file beside it with the server's pid and host, so that
// `calsync db restore` can refuse to swap the database under a running server (CONTRACT §19).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";

/** The server named by a lock file. */
export interface ServeLockHolder {
  pid: number;
  host: string;
  startedAt: string;
}

const lockPath = (database: string) => `${database}.serve-lock`;

/** Marks `database` as held by this process; the returned function gives it back. */
export function holdServeLock(database: string, now = new Date()): () => void {
  const path = lockPath(database);
  const holder: ServeLockHolder = { pid: process.pid, host: hostname(), startedAt: now.toISOString() };
  writeFileSync(path, `${JSON.stringify(holder)}\n`);
  return () => {
    // Only our own: a second server started on the same file (SQLite allows it) keeps its mark.
    if (serveLockHolder(database)?.pid === process.pid) rmSync(path, { force: true });
  };
}

/** The server holding `database`, or null when none does (no lock, or one left by a process that is gone). */
export function serveLockHolder(database: string): ServeLockHolder | null {
  let holder: ServeLockHolder;
  try {
    holder = JSON.parse(readFileSync(lockPath(database), "utf8")) as ServeLockHolder;
  } catch {
    return null;
  }
  // Another machine's process cannot be asked; a file on a shared disk is held until its server says otherwise.
  if (holder.host !== hostname()) return holder;
  return isAlive(holder.pid) ? holder : null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
