// `db copy` on SQLite: tables read in rowid (creation) order from one snapshot, written in one transaction.
import type Database from "better-sqlite3";
import { DatabaseNotEmptyError } from "../errors.js";
import type { PortableRow, RowBatch, Store } from "../types.js";

export type CopyQueries = Pick<Store, "tableNames" | "countRows" | "exportRows" | "importRows">;

/** Rows per batch: small enough to keep memory flat, large enough to keep round trips few. */
export const COPY_BATCH = 500;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The copy statements of one database. */
export function copyQueries(db: Database.Database): CopyQueries {
  const count = (table: string) => db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM ${quote(table)}`).get()!.n;
  const countAll = (tables: readonly string[]) => Object.fromEntries(tables.map((table) => [table, count(table)]));

  return {
    tableNames: async () =>
      db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .pluck().all(),
    countRows: async (tables) => countAll(tables),
    async *exportRows(tables) {
      // A deferred transaction: its snapshot starts at the first read and holds while the file keeps serving.
      db.exec("BEGIN");
      try {
        for (const table of tables) {
          let rows: PortableRow[] = [];
          for (const row of db.prepare<[], PortableRow>(`SELECT * FROM ${quote(table)} ORDER BY rowid`).iterate()) {
            rows.push(row);
            if (rows.length === COPY_BATCH) {
              yield { table, rows };
              rows = [];
            }
          }
          if (rows.length > 0) yield { table, rows };
        }
      } finally {
        db.exec("COMMIT");
      }
    },
    async importRows(tables, batches: AsyncIterable<RowBatch>) {
      db.exec("BEGIN IMMEDIATE");
      try {
        const before = countAll(tables);
        if (Object.values(before).some((n) => n > 0)) throw new DatabaseNotEmptyError(before);
        const written: Record<string, number> = Object.fromEntries(tables.map((table) => [table, 0]));
        const inserts = new Map<string, Database.Statement>();
        for await (const { table, rows } of batches) {
          if (!(table in written)) throw new Error(`db copy: unexpected table "${table}"`);
          for (const row of rows) {
            const columns = Object.keys(row);
            const key = `${table}(${columns.join(",")})`;
            let insert = inserts.get(key);
            if (!insert) {
              insert = db.prepare(
                `INSERT INTO ${quote(table)} (${columns.map(quote).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
              );
              inserts.set(key, insert);
            }
            insert.run(...columns.map((column) => row[column]));
          }
          written[table]! += rows.length;
        }
        db.exec("COMMIT");
        return written;
      } catch (error) {
        if (db.inTransaction) db.exec("ROLLBACK");
        throw error;
      }
    },
  };
}
