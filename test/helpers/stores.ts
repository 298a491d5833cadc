// The two store implementations as test factories: the store suite and the API tests run once per kind
// (describe.each), on a fresh database each time.
import { Database } from "../../src/store/sqlite/driver.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { migrate as migratePostgres, MIGRATIONS as POSTGRES_MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { createPool } from "../../src/store/postgres/pool.js";
import { migrate as migrateSqlite, MIGRATIONS as SQLITE_MIGRATIONS } from "../../src/store/sqlite/migrations.js";
import { createDatabase, dropDatabase, queryPostgres } from "./postgres.js";

/** One kind of database, as tests need it. */
export interface StoreKind {
  name: "sqlite" | "postgres";
  /** A fresh, empty database: a file path in a temp directory, or a new PostgreSQL database's URL. */
  create(): Promise<string>;
  /** Runs SQL with `?` placeholders straight on the database at `location`, to look at what the store left. */
  query(location: string, sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Brings the database at `location` to schema `version` and no further, as an older calsync left it. */
  migrateTo(location: string, version: number): Promise<void>;
  /** Removes everything `create` made. */
  dispose(): Promise<void>;
}

/** A SQLite kind: files in one temp directory. */
export function sqliteKind(): StoreKind {
  let dir: string | undefined;
  let count = 0;
  return {
    name: "sqlite",
    async create() {
      dir ??= mkdtempSync(path.join(tmpdir(), "calsync-"));
      return path.join(dir, `db-${++count}.db`);
    },
    async query(location, sql, params = []) {
      const db = new Database(location);
      try {
        db.pragma("foreign_keys = ON");
        const statement = db.prepare(sql);
        if (statement.reader) return statement.all(...params) as Record<string, unknown>[];
        statement.run(...params);
        return [];
      } finally {
        db.close();
      }
    },
    async migrateTo(location, version) {
      const db = new Database(location);
      try {
        migrateSqlite(db, SQLITE_MIGRATIONS.slice(0, version));
      } finally {
        db.close();
      }
    },
    async dispose() {
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}

/** A PostgreSQL kind: databases on the test run's server. */
export function postgresKind(): StoreKind {
  const made: string[] = [];
  return {
    name: "postgres",
    async create() {
      const url = await createDatabase();
      made.push(url);
      return url;
    },
    query: queryPostgres,
    async migrateTo(location, version) {
      const db = createPool(location);
      try {
        await migratePostgres(db, POSTGRES_MIGRATIONS.slice(0, version));
      } finally {
        await db.end();
      }
    },
    async dispose() {
      for (const url of made.splice(0)) await dropDatabase(url);
    },
  };
}

/** Both kinds, for `describe.each(storeKinds())`. */
export function storeKinds(): StoreKind[] {
  return [sqliteKind(), postgresKind()];
}
