// What only the PostgreSQL store has: migrations under an advisory lock, a masked URL, an unreachable
// server named by host and port, and a schema that twins SQLite's table for table, column for column.
import { Database } from "../src/store/sqlite/driver.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { RateLimiterPostgres } from "rate-limiter-flexible";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { datedEvent } from "../src/engine/nights.js";
import { StoreUnavailableError } from "../src/store/errors.js";
import { openStore } from "../src/store/index.js";
import { MIGRATIONS, MIGRATIONS_TABLE, migrate, SCHEMA_VERSION } from "../src/store/postgres/migrations.js";
import { createPool } from "../src/store/postgres/pool.js";
import { RATE_LIMITS_TABLE } from "../src/store/postgres/rate-limits.js";
import { MIGRATIONS as SQLITE_MIGRATIONS } from "../src/store/sqlite/migrations.js";
import type { Store } from "../src/store/types.js";
import { closedPortUrl } from "./helpers/api-fixture.js";
import { postgresKind } from "./helpers/stores.js";

const kind = postgresKind();
const stores: Store[] = [];
const open = async (location: string) => {
  const store = await openStore(location);
  stores.push(store);
  return store;
};
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});
afterAll(() => kind.dispose());

describe("opening a PostgreSQL database", () => {
  it("runs each migration step once when several instances open a new database at the same moment", async () => {
    const url = await kind.create();
    const opened = await Promise.all(Array.from({ length: 6 }, () => open(url)));
    await Promise.all(opened.map((store, i) => store.createOwner(`owner ${i}`)));
    expect(await opened[0]!.listOwners()).toHaveLength(6);
    const steps = await kind.query(url, `SELECT version FROM ${MIGRATIONS_TABLE} ORDER BY version`);
    expect(steps.map((row) => row.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });

  it("gives every instance its shared rate limiter when several start at the same moment on a new database", async () => {
    // The counts' table was once made by each limiter on first use: two CREATE TABLE IF NOT EXISTS at once
    // collided in PostgreSQL's catalog, and the loser's `calsync serve` exited 1 at start.
    for (let round = 0; round < 10; round++) {
      const url = await kind.create();
      const opened = await Promise.all(Array.from({ length: 8 }, () => open(url)));
      // Each pool connected first, so the CREATE statements leave at the same moment.
      await Promise.all(opened.map((store) => store.ping()));
      const limiters = await Promise.allSettled(opened.map((store) => store.sharedRateLimiter({ limit: 6, windowSeconds: 60 })));
      expect(limiters.filter((l) => l.status === "rejected")).toEqual([]);
    }
  });

  it("shows the URL with its password masked as the store's path", async () => {
    const url = await kind.create();
    const password = new URL(url).password;
    const store = await open(url);
    expect(store.path).toContain(":***@127.0.0.1:");
    expect(store.path).not.toContain(password);
  });

  it("runs only the steps a database has not run yet, each in its own transaction", async () => {
    const url = await kind.create();
    const db = createPool(url);
    try {
      const steps = ["CREATE TABLE a (x int)", "CREATE TABLE b (x int)", "CREATE TABLE c (x int); SELECT no_such_function()"];
      await migrate(db, steps.slice(0, 1));
      await migrate(db, steps.slice(0, 2)); // would fail on "relation a already exists" if step 1 ran again
      await expect(migrate(db, steps)).rejects.toThrow(/no_such_function/);
      const tables = await db.query<{ name: string }>(
        "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1",
      );
      expect(tables.map((t) => t.name)).toEqual(["a", "b", MIGRATIONS_TABLE]);
    } finally {
      await db.end();
    }
  });

  it("migrates a database whose rate-limit table the library made before step 12, keeping its counts", async () => {
    const url = await kind.create();
    const db = createPool(url);
    try {
      await migrate(db, MIGRATIONS.slice(0, 11));
      // What calsync before step 12 did: the library makes its table on first use.
      const limiter = await new Promise<RateLimiterPostgres>((resolve, reject) => {
        const made: RateLimiterPostgres = new RateLimiterPostgres(
          { storeClient: db.client, storeType: "client", tableName: RATE_LIMITS_TABLE, keyPrefix: "sync", points: 2, duration: 60 },
          (error?: unknown) => (error ? reject(error) : resolve(made)),
        );
      });
      await limiter.consume("token");
      await migrate(db);
      const steps = await db.query<{ version: number }>(`SELECT version FROM ${MIGRATIONS_TABLE} ORDER BY version`);
      expect(steps.map((row) => row.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    } finally {
      await db.end();
    }
    const store = await open(url);
    const shared = (await store.sharedRateLimiter({ limit: 2, windowSeconds: 60 }))!;
    await shared.consume("token");
    await expect(shared.consume("token")).rejects.toMatchObject({ remainingPoints: 0 });
  });

  it("refuses a database written by a newer calsync with a clear message, leaving it as it was", async () => {
    const url = await kind.create();
    await (await open(url)).close();
    await kind.query(url, `INSERT INTO ${MIGRATIONS_TABLE} (version) VALUES (?)`, [SCHEMA_VERSION + 1]);
    await expect(openStore(url)).rejects.toThrow(
      `database schema version ${SCHEMA_VERSION + 1} is newer than this calsync understands (${SCHEMA_VERSION}): upgrade calsync`,
    );
    expect(await kind.query(url, `SELECT COUNT(*)::int AS n FROM ${MIGRATIONS_TABLE}`)).toEqual([{ n: SCHEMA_VERSION + 1 }]);
  });

  it("names the host and port it cannot reach, never the password", async () => {
    const port = new URL(await closedPortUrl()).port;
    const attempt = openStore(`postgres://calsync:hunter2-secret@127.0.0.1:${port}/calsync`);
    await expect(attempt).rejects.toThrow(StoreUnavailableError);
    const message = await attempt.catch((error: Error) => error.message);
    expect(message).toBe(`cannot reach PostgreSQL at 127.0.0.1:${port}: connection refused`);
  });

  it("answers ping until closed", async () => {
    const store = await open(await kind.create());
    expect(await store.ping()).toBe(true);
    await store.close();
    expect(await store.ping()).toBe(false);
    await store.close(); // closing twice is harmless
  });
});

describe("a zone change racing a sync on PostgreSQL", () => {
  it("makes a calendar's write wait for a zone change in flight, then dates its rows in the committed zone", async () => {
    const url = await kind.create();
    const store = await open(url);
    const owner = await store.createOwner("Ann");
    const property = await store.createProperty(owner.id, "Beach House");
    const calendar = await store.createCalendar({ propertyId: property.id, source: "vrbo", url: "https://v.example/1.ics" });
    const y = new Date().getUTCFullYear() + 1;
    // 16:00 in Los Angeles to 10:00 three days later, dated with no zone (UTC) as the sync's diff read it.
    const event = datedEvent(
      { uid: "la", kind: "booking", start: `${y}-12-11T00:00:00.000Z`, end: `${y}-12-13T18:00:00.000Z`, summary: "Reserved", cancelled: false, details: {}, raw: {} },
      null,
    );
    const feed = { etag: null, lastModified: null, contentHash: null, lastFound: 1 };
    const db = createPool(url);
    let write: Promise<void> | undefined;
    try {
      // What updateProperty holds between reading the rows and committing the new zone.
      await db.transaction(async (sql) => {
        await sql.query("SELECT 1 FROM properties WHERE id = $1 FOR UPDATE", [property.id]);
        write = store.applyCalendarSync({ calendarId: calendar.id, inserts: [event], updates: [], cancels: [], feed, syncedAt: new Date(), timeZone: null });
        // Until the write waits for this lock (a write that did not would never show up here).
        while ((await kind.query(url, "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FOR KEY SHARE OF p%'")).length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await sql.run("UPDATE properties SET time_zone = 'America/Los_Angeles' WHERE id = $1", [property.id]);
      });
      await write;
    } finally {
      await db.end();
    }
    expect((await store.listReservations()).map((r) => [r.arrival, r.departure])).toEqual([[`${y}-12-10`, `${y}-12-13`]]);
  });
});

describe("the PostgreSQL schema", () => {
  it("twins every SQLite step, table, column, NOT NULL and index", async () => {
    expect(MIGRATIONS).toHaveLength(SQLITE_MIGRATIONS.length);
    const dir = mkdtempSync(path.join(tmpdir(), "calsync-schema-"));
    try {
      const file = path.join(dir, "schema.db");
      await (await openStore(file)).close();
      const sqlite = new Database(file);
      const tables = sqlite.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all();
      const sqliteColumns = tables.flatMap((table) =>
        sqlite.prepare<[], { name: string; notnull: number; pk: number }>(`PRAGMA table_info(${table})`).all()
          // SQLite lets a non-integer PRIMARY KEY hold NULL; calsync never writes one, PostgreSQL forbids it.
          .map((c) => `${table}.${c.name}${c.notnull || c.pk ? " NOT NULL" : ""}`),
      );
      const sqliteIndexes = sqlite.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").pluck().all();
      sqlite.close();

      const url = await kind.create();
      await (await open(url)).close();
      // The rate limiter's counts are bookkeeping, kept in memory on SQLite.
      // seq stands in for SQLite's rowid where SQLite has no column of that name.
      const pgColumns = await kind.query(url, `
        SELECT table_name || '.' || column_name || CASE WHEN is_nullable = 'NO' THEN ' NOT NULL' ELSE '' END AS c
        FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name NOT IN ('${MIGRATIONS_TABLE}', '${RATE_LIMITS_TABLE}') AND NOT (is_identity = 'YES' AND identity_generation = 'ALWAYS')`);
      // Indexes made by CREATE INDEX, not those behind PRIMARY KEY and UNIQUE constraints (SQLite's autoindexes).
      const pgIndexes = await kind.query(url, `
        SELECT i.relname AS name FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        WHERE i.relnamespace = current_schema()::regnamespace
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)`);
      expect(pgColumns.map((row) => row.c).sort()).toEqual(sqliteColumns.sort());
      expect(pgIndexes.map((row) => row.name).sort()).toEqual(sqliteIndexes.sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
