// `calsync db copy`: a whole database into an empty one, SQLite → PostgreSQL and back (CONTRACT §10).
import { Command } from "@commander-js/extra-typings";
import { existsSync } from "node:fs";
import type { Store } from "../../store/types.js";
import { CliFailure, type CliContext } from "../context.js";
import { jsonOption } from "../options.js";
import { stdoutPaint, writeJson, writeText } from "../output.js";
import { formatTable } from "../table.js";

/** Builds the `db` command group. */
export function dbCommand(context: CliContext) {
  const db = new Command("db").description("Database tools: copy a whole database (SQLite ↔ PostgreSQL)");

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

  return db;
}
