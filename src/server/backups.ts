// `serve --backup-dir DIR --backup-every 24h --backup-keep 7` (CONTRACT §19): a checked copy of the SQLite
// file at start (unless the newest in DIR is younger than the period) and then every period, the oldest
// beyond `keep` removed. The copy runs in a child process (store/sqlite/backup.ts).
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

/** Backs up `database` into `dir` now (or when the newest backup there is `everyMs` old) and every `everyMs`. */
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
  // A restart (a deploy, a crash loop) does not copy the whole file again while the newest backup is fresh:
  // the first one comes when that backup is a period old, then every period.
  const newest = backupsIn(options.dir, prefix).at(-1);
  const newestAt = newest ? Date.parse(newest.slice(prefix.length, -3).replace(/T(\d\d)-(\d\d)-(\d\d)/, "T$1:$2:$3")) : NaN;
  const firstIn = Number.isNaN(newestAt) ? 0 : Math.min(options.everyMs, Math.max(0, newestAt + options.everyMs - Date.now()));
  let timer: NodeJS.Timeout;
  const first = setTimeout(() => {
    tick();
    timer = setInterval(tick, options.everyMs);
    timer.unref();
  }, firstIn);
  first.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}

// The stamp sorts as time does, so the names sort the backups oldest first.
function backupsIn(dir: string, prefix: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.startsWith(prefix) && /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.db$/.test(name.slice(prefix.length)))
    .sort();
}

function prune(dir: string, prefix: string, keep: number): string[] {
  const backups = backupsIn(dir, prefix);
  const removed = backups.slice(0, Math.max(0, backups.length - keep));
  for (const name of removed) rmSync(join(dir, name), { force: true });
  return removed;
}
