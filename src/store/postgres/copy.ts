// `db copy` on PostgreSQL: tables read through a cursor from one snapshot, in creation order, and written
// in one transaction. The `seq` columns that stand in for SQLite's rowid are not data: they are left out
// of a copy and numbered afresh, in the order the rows arrive.
import { DatabaseNotEmptyError } from "../errors.js";
import { MIGRATIONS_TABLE } from "./migrations.js";
import type { PgDatabase, Sql } from "./pool.js";
import { RATE_LIMITS_TABLE } from "./rate-limits.js";
import type { PortableRow, Store } from "../types.js";

export type CopyQueries = Pick<Store, "tableNames" | "countRows" | "exportRows" | "importRows">;

/** Rows per batch: small enough to keep memory flat, large enough to keep round trips few. */
export const COPY_BATCH = 500;

// calsync's own tables beside the schema: which steps ran, and the shared rate limiter's counts.
const BOOKKEEPING = [MIGRATIONS_TABLE, RATE_LIMITS_TABLE];

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

interface Layout {
  /** Columns that are data (all but GENERATED ALWAYS identities). */
  columns: string[];
  /** Creation order: the identity column, else the primary key. */
  order: string[];
  /** Identity columns whose values are copied, whose sequences must then move past them. */
  numbered: string[];
}

async function layoutOf(sql: Sql, table: string): Promise<Layout> {
  const columns = await sql.query<{ name: string; identity: string }>(
    `SELECT attname AS name, attidentity AS identity FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    [table],
  );
  const key = await sql.query<{ name: string }>(
    `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
     WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
    [table],
  );
  const identity = columns.find((c) => c.identity !== "");
  return {
    columns: columns.filter((c) => c.identity !== "a").map((c) => c.name),
    order: identity ? [identity.name] : key.map((c) => c.name),
    numbered: columns.filter((c) => c.identity === "d").map((c) => c.name),
  };
}

async function countAll(sql: Sql, tables: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = (await sql.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${quote(table)}`))[0]!.n;
  return counts;
}

// Booleans travel as SQLite keeps them, 0 and 1.
const portable = (row: Record<string, unknown>): PortableRow =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === "boolean" ? Number(v) : (v as string | number | null)]));

/** The copy queries of one database. */
export function copyQueries(db: PgDatabase): CopyQueries {
  return {
    tableNames: async () =>
      (await db.query<{ name: string }>(
        "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> ALL($1::text[]) ORDER BY 1",
        [BOOKKEEPING],
      )).map((row) => row.name),
    countRows: (tables) => countAll(db, tables),
    async *exportRows(tables) {
      const session = await db.reserve();
      try {
        await session.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        for (const table of tables) {
          const { columns, order } = await layoutOf(session, table);
          await session.exec(
            `DECLARE calsync_copy NO SCROLL CURSOR FOR SELECT ${columns.map(quote).join(", ")} FROM ${quote(table)}
             ORDER BY ${order.map(quote).join(", ")}`,
          );
          for (;;) {
            const rows = await session.query<Record<string, unknown>>(`FETCH ${COPY_BATCH} FROM calsync_copy`);
            if (rows.length === 0) break;
            yield { table, rows: rows.map(portable) };
          }
          await session.exec("CLOSE calsync_copy");
        }
        await session.exec("COMMIT");
      } finally {
        session.release();
      }
    },
    importRows: (tables, batches) =>
      db.transaction(async (sql) => {
        const before = await countAll(sql, tables);
        if (Object.values(before).some((n) => n > 0)) throw new DatabaseNotEmptyError(before);
        const written: Record<string, number> = Object.fromEntries(tables.map((table) => [table, 0]));
        for await (const { table, rows } of batches) {
          if (!(table in written)) throw new Error(`db copy: unexpected table "${table}"`);
          for (const [columns, group] of byColumns(rows)) {
            const values = group.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(", ")})`);
            await sql.run(
              `INSERT INTO ${quote(table)} (${columns.map(quote).join(", ")}) VALUES ${values.join(", ")}`,
              group.flatMap((row) => columns.map((column) => row[column])),
            );
          }
          written[table]! += rows.length;
        }
        // Copied identity values (calendars.seq) must not be handed out again.
        for (const table of tables) {
          for (const column of (await layoutOf(sql, table)).numbered) {
            await sql.exec(
              `SELECT setval(pg_get_serial_sequence('${quote(table)}', '${column}'), GREATEST(MAX(${quote(column)}), 1),
               MAX(${quote(column)}) IS NOT NULL) FROM ${quote(table)}`,
            );
          }
        }
        return written;
      }),
  };
}

// Consecutive rows with the same columns, so that one INSERT takes them all.
function byColumns(rows: PortableRow[]): Array<[string[], PortableRow[]]> {
  const groups: Array<[string[], PortableRow[]]> = [];
  for (const row of rows) {
    const columns = Object.keys(row);
    const last = groups[groups.length - 1];
    if (last && last[0].join(",") === columns.join(",")) last[1].push(row);
    else groups.push([columns, [row]]);
  }
  return groups;
}
