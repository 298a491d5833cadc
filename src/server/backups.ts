// `serve --backup-dir DIR --backup-every 24h --backup-keep 7` (CONTRACT §19): a checked copy of the SQLite
// file now and then every period, the oldest beyond `keep` removed. The copy runs in a process
// of its own (backupSqlite).
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { backupSqlite, type BackupReport } from "../store/sqlite/backup.js";

/** Options of `startBackups`. */
export interface BackupScheduleOptions {
  /** The SQLite file to copy. */
  database: string;
  dir: string;
  everyMs: number;
  /** Backups kept in `dir`, the newest. */
  keep: number;
  onBackup: (report: BackupReport, removed: string[]) => void;
  onError: (error: unknown) => void;
}

/** A running schedule. */
export interface BackupSchedule {
  /** Stops the timer and waits for a backup in progress (its partial file is removed if it is cut short). */
  stop(): Promise<void>;
}

/** Backs up `database` into `dir` now and every `everyMs`. */
export function startBackups(options: BackupScheduleOptions): BackupSchedule {
  mkdirSync(options.dir, { recursive: true });
  const prefix = `${basename(options.database).replace(/\.db$/, "")}-`;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const once = async () => {
    try {
      const report = await backupSqlite(options.database, join(options.dir, `${prefix}${new Date().toISOString().replaceAll(":", "-")}.db`));
      options.onBackup(report, prune(options.dir, prefix, options.keep));
    } catch (error) {
      options.onError(error);
    }
  };
  const tick = () => {
    if (!stopped) running = running.then(once);
  };
  tick();
  const timer = setInterval(tick, options.everyMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

// The stamp sorts as time does, so the names sort the backups oldest first.
function prune(dir: string, prefix: string, keep: number): string[] {
  const backups = readdirSync(dir)
    .filter((name) => name.startsWith(prefix) && /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.db$/.test(name.slice(prefix.length)))
    .sort();
  const removed = backups.slice(0, Math.max(0, backups.length - keep));
  for (const name of removed) rmSync(join(dir, name), { force: true });
  return removed;
}
