// Each command loads only what it uses: help and the admin commands never load the network, parse or
// server stack (undici, node-ical, h3, listhen, …), which made every `calsync` call pay for all of it.
import { execFile } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DRIVER_PACKAGE } from "../src/store/sqlite/driver.js";
import { isBuilt, runCli, tempDir } from "./helpers/cli.js";

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

/** Runs the built CLI under the load probe; resolves with its exit code and the npm packages it loaded. */
function packagesLoaded(argv: string[]): Promise<{ code: number; packages: string[] }> {
  const out = path.join(tmp.dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", probe, path.join(root, "bin/calsync.js"), ...argv],
      { cwd: root, env: { PATH: process.env.PATH ?? "", CALSYNC_LOAD_PROBE: out }, timeout: 30_000 },
      (error) => {
        if (error && typeof error.code !== "number") return reject(error);
        const files = readFileSync(out, "utf8").split("\n");
        rmSync(out);
        const names = files.map((file) => /[/\\]node_modules[/\\]((?:@[^/\\]+[/\\])?[^/\\]+)/.exec(file)?.[1]).filter(Boolean) as string[];
        resolve({ code: typeof error?.code === "number" ? error.code : 0, packages: [...new Set(names)].sort() });
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

  it.each(["owner list", "property list", "calendar list", "token list", "webhook list", "reservations", "conflicts"])(
    "%s opens the database and loads nothing of the network, parse or server stack",
    async (command) => {
      const { code, packages } = await packagesLoaded([...command.split(" "), "--db", db]);
      expect(code).toBe(0);
      expect(packages).toContain(DRIVER_PACKAGE); // the driver of this Node line (see store/sqlite/driver.ts)
      expect(heavyIn(packages)).toEqual([]);
    },
  );

  it("still loads the network and parse stack for a local sync (the probe sees them when they load)", async () => {
    const { code, packages } = await packagesLoaded(["sync", "--local", "--db", db]);
    expect(code).toBe(3); // blocked_address
    expect(packages).toEqual(expect.arrayContaining(["undici", "node-ical"]));
  });
});
