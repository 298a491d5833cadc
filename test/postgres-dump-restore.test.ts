// docs/self-hosting.md's PostgreSQL backup, run as written: its `pg_dump` and `pg_restore` lines (read from
// the guide, so the two cannot drift) against a real PostgreSQL holding what the real CLI put there; after
// the restore, into a fresh database and over a wiped one, the CLI reads the same owners, calendars,
// reservations and tokens, and a sync runs on. pg_dump refuses a server
// newer than itself, and the pg_dump this project's CI installs is Debian bookworm's (15), so the server is
// PostgreSQL 15 from npm (test/tools/postgres-15), started here as the embedded one is for the other tests.
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgres15BinDir } from "calsync-postgres-15";
import { isBuilt, runBin } from "./helpers/cli.js";
import { codeBlocks, shellWords } from "./helpers/doc-blocks.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";
import { freePort } from "./helpers/free-port.js";

const run = promisify(execFile);

/** A pg_dump of major version 15 (Debian's postgresql-client-15), with its pg_restore beside it, or null. */
function clientTools(): { pgDump: string; pgRestore: string } | null {
  for (const dir of ["/usr/lib/postgresql/15/bin", ...(process.env.PATH ?? "").split(path.delimiter)]) {
    const pgDump = path.join(dir, "pg_dump");
    const pgRestore = path.join(dir, "pg_restore");
    if (!existsSync(pgDump) || !existsSync(pgRestore)) continue;
    try {
      if (/ 15\./.test(execFileSync(pgDump, ["--version"], { encoding: "utf8" }))) return { pgDump, pgRestore };
    } catch {
      // Debian's wrapper without a client behind it: look further.
    }
  }
  return null;
}

const serverBin = postgres15BinDir();
const tools = clientTools();
const missing = !serverBin
  ? "no PostgreSQL 15 server binaries (test/tools/postgres-15's optional package has no build for this platform)"
  : !tools
    ? "no pg_dump 15 (install postgresql-client-15; .ci/run does)"
    : null;
if (missing) console.warn(`postgres-dump-restore: skipped: ${missing}`);

/** The guide's two lines, as argv, with its placeholder URL replaced by `url`. */
function guideLines(url: string): { dump: string[]; restore: string[] } {
  const block = codeBlocks("docs/self-hosting.md").find((b) => /^pg_dump /m.test(b.code) && /^pg_restore /m.test(b.code));
  if (!block) throw new Error("docs/self-hosting.md has no block with its pg_dump and pg_restore lines");
  const argv = (tool: string) => {
    const line = block.code.split("\n").find((l) => l.startsWith(`${tool} `))!;
    return shellWords(line).map((word) => word.replace(/postgres:\/\/calsync:…@db\.example\/calsync/, url));
  };
  return { dump: argv("pg_dump"), restore: argv("pg_restore") };
}

/** Who PostgreSQL runs as: as root, the `postgres` user (made here when the embedded server's set-up has not). */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    execFileSync("groupadd", ["-f", "postgres"]);
    execFileSync("useradd", ["-M", "-g", "postgres", "postgres"]);
    return { uid: id("-u"), gid: id("-g") };
  }
}

describe.skipIf(missing !== null)("the self-hosting guide's pg_dump and pg_restore", { timeout: 180_000 }, () => {
  let parent: string;
  let server: ChildProcess | undefined;
  let feeds: FeedServer;
  let url: string;

  beforeAll(async () => {
    parent = mkdtempSync(path.join(tmpdir(), "calsync-pg15-"));
    chmodSync(parent, 0o755);
    const data = path.join(parent, "data");
    const as = postgresUser();
    mkdirSync(data, { mode: 0o700 });
    if (as) chownSync(data, as.uid, as.gid);
    await run(path.join(serverBin!, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C"], { ...as });
    const port = await freePort();
    server = spawn(
      path.join(serverBin!, "postgres"),
      ["-D", data, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off"],
      { ...as, stdio: "ignore" },
    );
    const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
    await untilConnects(admin);
    await query(admin, "CREATE ROLE calsync LOGIN PASSWORD 'secret'");
    await query(admin, "CREATE DATABASE calsync OWNER calsync");
    url = `postgres://calsync:secret@127.0.0.1:${port}/calsync`;
    feeds = await startFeedServer();
  });

  afterAll(async () => {
    await feeds?.close();
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once("exit", resolve));
      server.kill("SIGINT");
      await exited;
    }
    rmSync(parent, { recursive: true, force: true });
  });

  it("dumps, and restores into a fresh database and over a wiped one what the CLI reads back; a sync runs on", async () => {
    expect(isBuilt(), "npm run build first").toBe(true);
    const cliOn = async (db: string, argv: string[]) => {
      const result = await runBin([...argv, "--db", db]);
      expect(result.code, `calsync ${argv.join(" ")}: ${result.stderr}`).toBe(0);
      return result.stdout;
    };
    const cli = (...argv: string[]) => cliOn(url, argv);
    await cli("owner", "add", "Ann");
    const property = JSON.parse(await cli("property", "add", "Sea View Loft", "--json"));
    const stays = [
      { uid: "a1", start: day(10), end: day(13), summary: "Reserved" },
      { uid: "a2", start: day(20), end: day(24), summary: "Reserved" },
    ];
    await cli("calendar", "add", "--property", property.id, "--source", "airbnb", "--url", feeds.url("/airbnb.ics", { body: buildIcs(stays) }));
    await cli("sync", "--local", "--allow-private-networks");
    await cli("token", "create", "--name", "ci", "--json");
    const reservations = await cli("reservations", "--json");
    const tokens = await cli("token", "list", "--json");
    const owners = await cli("owner", "list", "--json");
    const calendars = await cli("calendar", "list", "--json");
    expect(JSON.parse(reservations)).toHaveLength(2);
    expect(JSON.parse(tokens)).toHaveLength(1);

    const { dump, restore } = guideLines(url);
    const cwd = parent;
    await run(tools!.pgDump, dump.slice(1), { cwd });
    expect(existsSync(path.join(cwd, "calsync.dump"))).toBe(true);

    // Into a fresh, empty database (a new machine): the same owners, calendars, reservations and tokens, and
    // the restored sequences and constraints take new writes (a sync stores the feed's new stay).
    const admin = url.replace(/\/\/calsync:secret@/, "//postgres@").replace(/\/calsync$/, "/postgres");
    await query(admin, "CREATE DATABASE calsync_fresh OWNER calsync");
    const fresh = url.replace(/\/calsync$/, "/calsync_fresh");
    await run(tools!.pgRestore, guideLines(fresh).restore.slice(1), { cwd });
    const onFresh = (...argv: string[]) => cliOn(fresh, argv);
    expect(await onFresh("owner", "list", "--json")).toBe(owners);
    expect(await onFresh("calendar", "list", "--json")).toBe(calendars);
    expect(await onFresh("reservations", "--json")).toBe(reservations);
    expect(await onFresh("token", "list", "--json")).toBe(tokens);
    feeds.setRoute("/airbnb.ics", { body: buildIcs([...stays, { uid: "a3", start: day(30), end: day(33), summary: "Reserved" }]) });
    const freshSync = JSON.parse(await onFresh("sync", "--local", "--allow-private-networks", "--json"));
    expect(freshSync.failed).toBe(0);
    expect(freshSync.results[0].result).toMatchObject({ reservationsFound: 3, reservationsCreated: 1 });
    expect(JSON.parse(await onFresh("reservations", "--json"))).toHaveLength(3);
    feeds.setRoute("/airbnb.ics", { body: buildIcs(stays) });

    // Everything lost after the dump, the tables left empty.
    await query(url, "TRUNCATE owners CASCADE");
    expect(JSON.parse(await cli("reservations", "--json"))).toEqual([]);

    await run(tools!.pgRestore, restore.slice(1), { cwd });
    expect(await cli("reservations", "--json")).toBe(reservations);
    expect(await cli("token", "list", "--json")).toBe(tokens);
    expect(await cli("owner", "list", "--json")).toBe(owners);
    expect(await cli("calendar", "list", "--json")).toBe(calendars);
    const synced = JSON.parse(await cli("sync", "--local", "--allow-private-networks", "--json"));
    expect(synced.failed).toBe(0);
    expect(synced.results[0].result).toMatchObject({ reservationsFound: 2, reservationsCreated: 0, reservationsCancelled: 0 });
  });
});

async function query(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function untilConnects(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await query(url, "SELECT 1");
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
