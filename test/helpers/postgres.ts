// Databases of the test run's PostgreSQL (test/setup/postgres.ts): each test that needs one gets a fresh
// one, as a schema of its own named in the URL (`options=-c search_path=…`): a schema is made in a
// millisecond where CREATE DATABASE copies a template for a few hundred, and calsync sees no difference.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

/** The PostgreSQL server of this test run (a URL naming its `postgres` database). */
export function postgresServerUrl(): string {
  return inject("postgresUrl");
}

/** `url` with its tables in schema `name`. */
export function withSchema(url: string, name: string): string {
  const next = new URL(url);
  next.searchParams.set("options", `-c search_path=${name}`);
  return next.toString();
}

const schemaOf = (url: string) => /search_path=(\w+)/.exec(new URL(url).searchParams.get("options") ?? "")?.[1];

/** Runs `work` with a client on the server's own database. */
async function asAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresServerUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database (a fresh schema) and returns its URL; `dropDatabase(url)` removes it. */
export async function createDatabase(): Promise<string> {
  const name = `calsync_test_${randomBytes(6).toString("hex")}`;
  await asAdmin((client) => client.query(`CREATE SCHEMA ${name}`));
  return withSchema(postgresServerUrl(), name);
}

/** Drops a database made by `createDatabase` with everything in it. */
export async function dropDatabase(url: string): Promise<void> {
  const name = schemaOf(url);
  if (name) await asAdmin((client) => client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`));
}

/** Runs one statement on the database at `url` (`?` placeholders, as in SQLite) and returns its rows. */
export async function queryPostgres(url: string, sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  let n = 0;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows;
  } finally {
    await client.end();
  }
}
