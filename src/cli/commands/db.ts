// `calsync db copy`: a whole database into an empty one, SQLite → PostgreSQL and back (CONTRACT §10); `db backup`
// and `db restore`: a checked copy of a SQLite file while serve runs, and the way back (§19).
import { Command } from "@commander-js/extra-typings";
import { existsSync } from "node:fs";
import type { Store } from "../../store/types.js";
import { CliFailure, type CliContext } from "../context.js";
import { dbOption, jsonOption } from "../options.js";
import { stdoutPaint, writeJson, writeText } from "../output.js";
import { formatTable } from "../table.js";

/** Builds the `db` command group. */
export function dbCommand(context: CliContext) {
  const db = new Command("db").description(DB_DESCRIPTION);

  db.command("copy")
    .description("Copy a whole database (owners to reservations, the sync history, dashboard sign-ins) into an empty one")
    .requiredOption("--from <path>", "source: SQLite database file or postgres:// URL")
    .requiredOption("--to <path>", "target: SQLite database file or postgres:// URL; created if missing, must be empty")
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nIds, tokens (hashes), feed tokens and the history are kept, so API keys and feed URLs keep working;\n" +
        "owners' passwords, open invite links and dashboard sessions too.\n" +
        "A target holding any rows is refused (exit 1) and left as it was.\n" +
        "Examples:\n" +
        "  calsync db copy --from ~/.local/share/calsync/calsync.db --to postgres://calsync:…@db.example/calsync\n" +
        "  calsync db copy --from postgres://calsync:…@db.example/calsync --to backup.db --json",
    )
    .action(async (options) => {
      // The store (and with it the database drivers) loads only when the command runs (STYLE.md).
      const { copyDatabase } = await import("../../store/copy.js");
      const { DatabaseNotEmptyError } = await import("../../store/errors.js");
      const { isPostgresUrl, openStore } = await import("../../store/index.js");
      // Opening a path that does not exist would create an empty database and "copy" nothing from it.
      if (!isPostgresUrl(options.from) && options.from !== ":memory:" && !existsSync(options.from)) {
        throw new CliFailure(`no database at ${options.from}`, 1);
      }
      const opened: Store[] = [];
      try {
        const from = await openStore(options.from);
        opened.push(from);
        const to = await openStore(options.to);
        opened.push(to);
        let tables: Record<string, number>;
        try {
          tables = await copyDatabase(from, to);
        } catch (error) {
          if (error instanceof DatabaseNotEmptyError) throw new CliFailure(error.message, 1);
          throw error;
        }
        const total = Object.values(tables).reduce((sum, n) => sum + n, 0);
        if (options.json) return writeJson(context, { from: from.path, to: to.path, tables, total });
        const rows = Object.entries(tables).map(([table, n]) => [table, String(n)]);
        writeText(context, formatTable([{ header: "TABLE" }, { header: "ROWS", align: "right" }], rows, stdoutPaint(context)));
        writeText(context, `Copied ${total} rows from ${from.path} to ${to.path}.`);
      } finally {
        for (const store of opened) await store.close();
      }
    });

  db.command("backup")
    .description("Write a checked copy of the SQLite database, consistent while calsync serve writes to it")
    .requiredOption("--to <file>", "the backup file to write (its directory must exist)")
    .option("--force", "replace the file if it exists")
    .addOption(dbOption())
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nThe copy is one moment of the database (SQLite's VACUUM INTO, which blocks no writer), passes\n" +
        "integrity_check before it takes the file's name, and is compacted. For PostgreSQL use pg_dump\n" +
        "(docs/self-hosting.md).\n" +
        "Examples:\n" +
        "  calsync db backup --to /var/backups/calsync-$(date +%F).db\n" +
        "  calsync db backup --db ./calsync.db --to ./copy.db --force --json",
    )
    .action(async (options) => {
      const database = await sqliteFile(context, options.db, "backup");
      const { BackupError, backupSqlite } = await import("../../store/sqlite/backup.js");
      const report = await backupSqlite(database, options.to, { force: options.force }).catch((error: unknown) => {
        throw error instanceof BackupError ? new CliFailure(error.message, 1) : error;
      });
      if (options.json) return writeJson(context, { from: database, ...report });
      const { owners, properties, calendars, reservations } = report.counts;
      writeText(
        context,
        `Backed up ${database} to ${report.path} (${formatBytes(report.bytes)}, schema ${report.schemaVersion}): ` +
          `${owners} owners, ${properties} properties, ${calendars} calendars, ${reservations} reservations. integrity_check: ok.`,
      );
    });

  db.command("restore")
    .description("Replace the SQLite database by a backup (refused while calsync serve holds it)")
    .requiredOption("--from <file>", "the backup to restore")
    .addOption(dbOption())
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nThe backup is checked first (a calsync database this version reads, integrity_check ok); the database\n" +
        "it replaces is kept beside it as <db>.before-restore-<time>. Stop calsync serve before restoring.\n" +
        "Example:\n" +
        "  calsync db restore --from /var/backups/calsync-2026-11-27.db",
    )
    .action(async (options) => {
      const database = await sqliteFile(context, options.db, "restore", { mayBeMissing: true });
      const { BackupError, restoreSqlite } = await import("../../store/sqlite/backup.js");
      const report = await restoreSqlite(options.from, database).catch((error: unknown) => {
        throw error instanceof BackupError ? new CliFailure(error.message, 1) : error;
      });
      if (options.json) return writeJson(context, { from: options.from, ...report });
      const { calendars, reservations } = report.counts;
      const kept = report.previous ? ` The database it replaced is kept as ${report.previous}.` : "";
      writeText(context, `Restored ${database} from ${options.from}: ${calendars} calendars, ${reservations} reservations.${kept}`);
    });

  return db;
}

const DB_DESCRIPTION = "Database tools: copy a whole database (SQLite ↔ PostgreSQL), back up and restore a SQLite file";

/** The SQLite file `--db` names (or the default); PostgreSQL has tools of its own for this. */
async function sqliteFile(context: CliContext, dbFlag: string | undefined, what: string, options: { mayBeMissing?: boolean } = {}): Promise<string> {
  const { isPostgresUrl, resolveDatabasePath } = await import("../../store/index.js");
  const location = resolveDatabasePath(dbFlag, context.io.env);
  if (isPostgresUrl(location)) {
    throw new CliFailure(`db ${what} is for SQLite files; for PostgreSQL use pg_dump and pg_restore (docs/self-hosting.md)`, 1);
  }
  if (!options.mayBeMissing && !existsSync(location)) throw new CliFailure(`no database at ${location}`, 1);
  return location;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
