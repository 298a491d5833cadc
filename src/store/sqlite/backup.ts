// A consistent copy of a SQLite database while others write to it, and the way back (CONTRACT §19).
// `VACUUM INTO` reads the whole file in one read transaction, so the copy is one moment of it: in WAL mode
// that blocks no writer, and a calendar's transaction is in the copy whole or not at all. It runs in a child
// process with a connection of its own, so a server taking a backup of a large file keeps answering.
import { spawn } from "node:child_process";
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { driverEntry, nativeBinding } from "./driver.js";
import { SCHEMA_VERSION } from "./migrations.js";
import { fileStamp } from "./open.js";
import { serveLockHolder } from "./serve-lock.js";

/** What a backup or a restore wrote. */
export interface BackupReport {
  /** The file written. */
  path: string;
  bytes: number;
  schemaVersion: number;
  /** Rows of the tables an owner cares about. */
  counts: { owners: number; properties: number; calendars: number; reservations: number };
}

/** A backup or restore refused or failed for a reason a person can act on; nothing was replaced. */
export class BackupError extends Error {
  override name = "BackupError";
}

interface CopyTask {
  driver: string;
  nativeBinding?: string;
  source: string;
  target: string;
  /** Only check `source` (a restore's file), copying nothing. */
  checkOnly: boolean;
}

interface CopyResult {
  integrity: string;
  schemaVersion: number;
  tables: string[];
  counts: BackupReport["counts"];
}

// CommonJS run by `node -e` in a child process: the driver is required by its absolute path, so the child needs
// no file of its own beside this one in dist/ and src/ alike. A child process at a low priority, not a worker
// thread: copying a 1 GiB file beside a server on a loaded machine (bench part `backup`, load 5), the server's
// /healthz answered at p50 0.7 / p99 9.6 ms, where a worker thread in the server's process gave 3.1 / 18.5 ms.
const CHILD_CODE = `
try { require("node:os").setPriority(10); } catch {}
const task = JSON.parse(process.env.CALSYNC_COPY_TASK);
const Database = require(task.driver);
const open = (path, readonly) => new Database(path, {
  readonly, fileMustExist: true, timeout: 5000, ...(task.nativeBinding ? { nativeBinding: task.nativeBinding } : {}),
});
const answer = (message) => process.stdout.write(JSON.stringify(message));
try {
  if (!task.checkOnly) {
    const parent = process.ppid;
    const source = open(task.source, true);
    try { source.prepare("VACUUM INTO ?").run(task.target); } finally { source.close(); }
    // The calsync that asked was killed meanwhile: nobody will check or name this copy, so it goes.
    if (process.ppid !== parent) { require("node:fs").rmSync(task.target, { force: true }); process.exit(1); }
  }
  const copy = open(task.checkOnly ? task.source : task.target, true);
  try {
    const integrity = copy.pragma("integrity_check").map((row) => row.integrity_check).join("; ");
    const tables = copy.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all();
    const count = (table) => tables.includes(table) ? copy.prepare("SELECT count(*) FROM " + table).pluck().get() : 0;
    const counts = { owners: count("owners"), properties: count("properties"), calendars: count("calendars"), reservations: count("reservations") };
    answer({ ok: true, result: { integrity, schemaVersion: copy.pragma("user_version", { simple: true }), tables, counts } });
  } finally { copy.close(); }
} catch (error) {
  answer({ ok: false, message: error && error.message ? error.message : String(error), code: error && error.code });
}
`;

type CopyAnswer = { ok: true; result: CopyResult } | { ok: false; message: string; code?: string };

function runCopy(task: Omit<CopyTask, "driver" | "nativeBinding">): Promise<CopyResult> {
  const full: CopyTask = { ...task, driver: driverEntry, ...(nativeBinding ? { nativeBinding } : {}) };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", CHILD_CODE], {
      env: { ...process.env, CALSYNC_COPY_TASK: JSON.stringify(full) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // calsync exiting at once (a second signal) ends its copy too, and removes the half-written file.
    const onExit = () => {
      child.kill("SIGKILL");
      if (!task.checkOnly) for (const suffix of ["", "-journal"]) rmSync(`${task.target}${suffix}`, { force: true });
    };
    process.once("exit", onExit);
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    child.once("error", (error) => {
      process.removeListener("exit", onExit);
      reject(error);
    });
    child.once("close", (code, signal) => {
      process.removeListener("exit", onExit);
      let answer: CopyAnswer | undefined;
      try {
        answer = out ? (JSON.parse(out) as CopyAnswer) : undefined;
      } catch {
        answer = undefined;
      }
      if (answer?.ok) resolve(answer.result);
      else if (answer) reject(Object.assign(new Error(answer.message), { code: answer.code }));
      else reject(new Error(`the backup process ended (${signal ?? code}) without an answer${err ? `: ${err.trim().split("\n")[0]}` : ""}`));
    });
  });
}

const CALSYNC_TABLES = ["owners", "properties", "calendars", "reservations"];

/**
 * Writes a checked copy of the SQLite database at `source` to `target`. The copy appears under its name
 * only once whole and checked; a target that exists is refused unless `force`.
 */
export async function backupSqlite(source: string, target: string, options: { force?: boolean } = {}): Promise<BackupReport> {
  if (!existsSync(source)) throw new BackupError(`no database at ${source}`);
  if (existsSync(target)) {
    if (!options.force) throw new BackupError(`${target} exists: choose another file or pass --force to replace it`);
    if (statSync(target).isDirectory()) throw new BackupError(`${target} is a directory: name the backup file`);
  }
  if (!existsSync(dirname(target))) throw new BackupError(`no directory ${dirname(target)} for the backup`);
  const partial = partialPath(target, "backup");
  try {
    const result = await runCopy({ source, target: partial, checkOnly: false }).catch((error: unknown) => {
      throw new BackupError(`could not write ${target}: ${describe(error)}`);
    });
    if (result.integrity !== "ok") throw new BackupError(`the copy of ${source} failed its integrity check: ${result.integrity}`);
    renameSync(partial, target);
    return { path: target, bytes: statSync(target).size, schemaVersion: result.schemaVersion, counts: result.counts };
  } finally {
    rmSync(partial, { force: true });
  }
}

/**
 * Replaces the database at `target` by a checked copy of `from`, keeping the replaced file beside it
 * (`<target>.before-restore-<time>`). Refused, replacing nothing, while a server holds `target` or when
 * `from` is not a sound calsync database this version can open.
 */
export async function restoreSqlite(from: string, target: string, now = new Date()): Promise<BackupReport & { previous: string | null }> {
  if (!existsSync(from)) throw new BackupError(`no backup at ${from}`);
  const holder = serveLockHolder(target);
  if (holder) {
    const where = holder.host === hostname() ? `pid ${holder.pid}` : `pid ${holder.pid} on ${holder.host}`;
    throw new BackupError(`calsync serve (${where}) holds ${target}: stop it, then restore`);
  }
  const checked = await runCopy({ source: from, target: "", checkOnly: true }).catch((error: unknown) => {
    throw new BackupError(`${from} is not a calsync database: ${describe(error)}`);
  });
  if (!CALSYNC_TABLES.every((table) => checked.tables.includes(table)) || checked.schemaVersion < 1) {
    throw new BackupError(`${from} is not a calsync database (it has no calsync tables)`);
  }
  if (checked.schemaVersion > SCHEMA_VERSION) {
    throw new BackupError(`${from} was written by a newer calsync (schema ${checked.schemaVersion}, this one knows ${SCHEMA_VERSION}): upgrade calsync first`);
  }
  if (checked.integrity !== "ok") throw new BackupError(`${from} failed its integrity check: ${checked.integrity}`);

  const incoming = partialPath(target, "restore");
  try {
    // A copy of the backup, not the backup itself: the file restored from stays as it was.
    const copied = await runCopy({ source: from, target: incoming, checkOnly: false }).catch((error: unknown) => {
      throw new BackupError(`could not write beside ${target}: ${describe(error)}`);
    });
    if (copied.integrity !== "ok") throw new BackupError(`the copy of ${from} failed its integrity check: ${copied.integrity}`);
    let previous: string | null = null;
    if (existsSync(target)) {
      previous = `${target}.before-restore-${fileStamp(now)}`;
      try {
        // The replaced database with its last writes: a backup of it, since its WAL holds what the file may not.
        await backupSqlite(target, previous);
        for (const suffix of ["-wal", "-shm"]) rmSync(`${target}${suffix}`, { force: true });
      } catch {
        // A database that cannot be read (the reason to restore, often) is moved aside as it is.
        for (const suffix of ["", "-wal"]) if (existsSync(`${target}${suffix}`)) renameSync(`${target}${suffix}`, `${previous}${suffix}`);
        rmSync(`${target}-shm`, { force: true });
      }
    }
    renameSync(incoming, target);
    return { path: target, bytes: statSync(target).size, schemaVersion: copied.schemaVersion, counts: copied.counts, previous };
  } finally {
    rmSync(incoming, { force: true });
  }
}

function partialPath(target: string, what: string): string {
  return join(dirname(target), `.${basename(target)}.${what}-${process.pid}-${Date.now()}.partial`);
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  if (code === "SQLITE_FULL") return "the disk is full";
  if (code === "SQLITE_CANTOPEN" || code === "SQLITE_READONLY") return `${message} (is the directory writable?)`;
  return message;
}
