// Each command loads only what it uses: help and the admin commands never load the network, parse or
// server stack (undici, node-ical, h3, listhen, …), which made every `calsync` call pay for all of it.
import { execFile, spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DRIVER_PACKAGE } from "../src/store/sqlite/driver.js";
import { isBuilt, runCli, tempDir } from "./helpers/cli.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const probe = path.join(root, "test/helpers/load-probe.mjs");
/** Packages of the network, parse and server stack (rrule covers rrule-temporal too). */
const HEAVY = [
  "undici", "node-ical", "rrule", "temporal-polyfill", "h3", "listhen", "ical-generator", "node-forge", "piscina",
  "pg", "rate-limiter-flexible", "prom-client", "html-template-tag", "standardwebhooks",
];
const tmp = tempDir();
let db: string;

beforeAll(async () => {
  if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
  db = tmp.db();
  expect((await runCli(["owner", "add", "Ann", "--db", db])).code).toBe(0);
  const property = JSON.parse((await runCli(["property", "add", "Loft", "--json", "--db", db])).stdout) as { id: string };
  // A loopback address: the sync below is refused by the private-network guard before any connection.
  const url = "http://127.0.0.1:9/calendar/ical/1.ics";
  expect((await runCli(["calendar", "add", "--property", property.id, "--url", url, "--db", db])).code).toBe(0);
});
afterAll(() => tmp.remove());

const probeOut = () => path.join(tmp.dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);

/** The npm packages named in the load probe's list `out` (removed after reading). */
function packagesIn(out: string): string[] {
  return packagesOf(filesIn(out));
}

/** The files in the load probe's list `out` (removed after reading). */
function filesIn(out: string): string[] {
  const files = readFileSync(out, "utf8").split("\n");
  rmSync(out);
  return files;
}

function packagesOf(files: string[]): string[] {
  const names = files.map((file) => /[/\\]node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)/.exec(file)?.[1]).filter(Boolean) as string[];
  return [...new Set(names)].sort();
}

/** Runs the built CLI under the load probe; resolves with its exit code, the npm packages and calsync's own modules it loaded. */
function packagesLoaded(argv: string[]): Promise<{ code: number; packages: string[]; modules: string[] }> {
  const out = probeOut();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", probe, path.join(root, "bin/calsync.js"), ...argv],
      { cwd: root, env: { PATH: process.env.PATH ?? "", CALSYNC_LOAD_PROBE: out }, timeout: 30_000 },
      (error) => {
        if (error && typeof error.code !== "number") return reject(error);
        const files = filesIn(out);
        const modules = files.map((file) => /[/\\]dist[/\\](.+)\.js$/.exec(file)?.[1]?.replaceAll("\\", "/")).filter(Boolean) as string[];
        resolve({ code: typeof error?.code === "number" ? error.code : 0, packages: packagesOf(files), modules: [...new Set(modules)].sort() });
      },
    );
  });
}

const heavyIn = (packages: string[]) => packages.filter((name) => HEAVY.some((heavy) => name === heavy || name.startsWith(`${heavy}-`)));

describe("what each command loads", () => {
  it.each(["--help", "--version", "owner --help", "sync --help"])("%s loads commander, not the database driver or the network stack", async (command) => {
    const { code, packages } = await packagesLoaded(command.split(" "));
    expect(code).toBe(0);
    expect(packages).toContain("commander");
    expect(heavyIn(packages)).toEqual([]);
    expect(packages.filter((name) => name.startsWith("better-sqlite3"))).toEqual([]);
  });

  it.each(["--help", "--version", "help", "syn"])("%s loads no command's module", async (command) => {
    const { modules } = await packagesLoaded(command.split(" "));
    expect(modules).toContain("cli/program");
    expect(modules.filter((name) => name.startsWith("cli/commands/"))).toEqual([]);
  });

  it.each([
    // owner-invite and private-feeds define owner's subcommands (invite; cleaning, calendar): light, no store.
    ["owner list", ["owner", "owner-invite", "private-feeds"]],
    ["owner --help", ["owner", "owner-invite", "private-feeds"]],
    ["help token", ["token"]],
    ["conflicts", ["conflicts"]],
  ])("%s loads the module of that command alone", async (command, expected) => {
    const { modules } = await packagesLoaded([...command.split(" "), "--db", db]);
    expect(modules.filter((name) => name.startsWith("cli/commands/")).sort()).toEqual(expected.map((name) => `cli/commands/${name}`).sort());
  });

  it("owner list loads, of calsync's own, the CLI and the store's owner queries alone", async () => {
    const { code, modules } = await packagesLoaded(["owner", "list", "--db", db]);
    expect(code).toBe(0);
    expect(modules.filter((name) => !name.startsWith("cli/") && !name.startsWith("store/"))).toEqual(["ids", "resource-types"]);
    // Each query group is a module of its own (store/sqlite/open.ts): the owners' is the one this command calls.
    const groups = ["owners", "tokens", "properties", "calendars", "reservations", "sync-port", "sync-runs", "sessions", "webhooks", "mail"];
    expect(groups.filter((group) => modules.includes(`store/sqlite/${group}`))).toEqual(["owners"]);
  });

  it.each(["owner list", "property list", "calendar list", "token list", "webhook list", "reservations", "conflicts"])(
    "%s opens the database and loads nothing of the network, parse or server stack",
    async (command) => {
      const { code, packages } = await packagesLoaded([...command.split(" "), "--db", db]);
      expect(code).toBe(0);
      expect(packages).toContain(DRIVER_PACKAGE); // the driver of this Node line (see store/sqlite/driver.ts)
      expect(heavyIn(packages)).toEqual([]);
    },
  );

  // Whether the parser loads for a never-read calendar depends on timing (it starts loading 10 ms after the
  // requests go out): the deterministic cases are below.
  it("loads the network stack for a local sync (the probe sees it when it loads)", async () => {
    const { code, packages } = await packagesLoaded(["sync", "--local", "--db", db]);
    expect(code).toBe(3); // blocked_address
    expect(packages).toContain("undici");
  });
});

describe("what a sync and a server load once running", () => {
  let feeds: FeedServer;
  let syncDb: string;
  beforeAll(async () => {
    feeds = await startFeedServer();
    const url = feeds.url("/airbnb.ics", { body: buildIcs([{ uid: "stay-1", start: day(3), end: day(7), summary: "Reserved" }]), etag: '"v1"' });
    syncDb = tmp.db();
    expect((await runCli(["owner", "add", "Ann", "--db", syncDb])).code).toBe(0);
    const property = JSON.parse((await runCli(["property", "add", "Loft", "--json", "--db", syncDb])).stdout) as { id: string };
    expect((await runCli(["calendar", "add", "--property", property.id, "--url", url, "--db", syncDb])).code).toBe(0);
  });
  afterAll(() => feeds.close());

  it("a local sync loads the parser for a feed it reads, and not for one that answers 304", async () => {
    const first = await packagesLoaded(["sync", "--local", "--allow-private-networks", "--db", syncDb]);
    expect(first.code).toBe(0);
    expect(first.packages).toEqual(expect.arrayContaining(["undici", "node-ical"]));
    const again = await packagesLoaded(["sync", "--local", "--allow-private-networks", "--db", syncDb]);
    expect(again.code).toBe(0);
    expect(feeds.requests.at(-1)?.headers["if-none-match"]).toBe('"v1"');
    expect(again.packages).toContain("undici");
    expect(again.packages.filter((name) => ["node-ical", "rrule", "rrule-temporal"].includes(name))).toEqual([]);
  });

  it("serve without --metrics loads neither prom-client nor the whole of undici's package until asked", async () => {
    const out = probeOut();
    const child = spawn(
      process.execPath,
      ["--import", probe, path.join(root, "bin/calsync.js"), "serve", "--json", "--port", "0", "--db", syncDb],
      { cwd: root, env: { PATH: process.env.PATH ?? "", CALSYNC_LOAD_PROBE: out }, stdio: ["ignore", "pipe", "ignore"] },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    let printed = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        printed += chunk.toString();
        try {
          resolve((JSON.parse(printed) as { url: string }).url);
        } catch {
          // Not the whole document yet.
        }
      });
      child.once("exit", (code) => reject(new Error(`serve exited ${code} before listening`)));
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    const files = readFileSync(out, "utf8");
    const packages = packagesIn(out);
    expect(packages).toContain("h3");
    expect(packages.filter((name) => name === "prom-client" || name === "standardwebhooks")).toEqual([]);
    // undici's Agent alone (undici-agent.ts) may be in; its package entry, which loads fetch and the rest, is not.
    expect(files).not.toMatch(/node_modules[/\\]undici[/\\]index\.js/);
  });
});
