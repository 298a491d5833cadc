// `calsync demo`, the first thing a newcomer runs: as a child process (exit 0, every section, --json,
// --keep), in-process when interrupted (everything cleaned up), and its bundled feeds (never stale).
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_FEEDS_DIR, fillDates } from "../src/cli/demo/feed-host.js";
import { runDemo } from "../src/cli/demo/run-demo.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import type { SyncResponse } from "../src/types.js";
import { isBuilt, runBin } from "./helpers/cli.js";
import { day } from "./helpers/ics.js";

const DEMO_TIMEOUT = 30_000;
const kept: string[] = [];

beforeAll(() => {
  if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
});
afterAll(() => {
  for (const dir of kept) rmSync(dir, { recursive: true, force: true });
});

describe("calsync demo", () => {
  it("runs end to end, explains each step, exits 0 and deletes its temporary database", { timeout: DEMO_TIMEOUT }, async () => {
    const result = await runBin(["demo"]);
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    for (const section of ["1. Set-up", "2. First sync", "3. Airbnb's feed changes", "4. Second sync", "5. Reservations stored now"]) {
      expect(out).toContain(section);
    }
    // First sync: three good channels stored, the broken one failed and explained.
    expect(out).toMatch(/^Sea View Loft\s+airbnb\s+ok\s+4\s+4\s+0\s+0$/m);
    expect(out).toMatch(/^Sea View Loft\s+expedia\s+failed\s.*not_icalendar/m);
    expect(out).toContain("Why 207? 1 calendar of 4 failed");
    expect(out).toContain("A failed calendar writes nothing");
    // Second sync: the changed feed shows one of each change; the unchanged ones show none.
    expect(out).toMatch(/^Sea View Loft\s+airbnb\s+ok\s+4\s+1\s+1\s+1$/m);
    expect(out).toMatch(/^Sea View Loft\s+booking\s+ok\s+2\s+0\s+0\s+0$/m);
    expect(out).toMatch(/^airbnb\s+booking\s+cancelled\s.*cancelled$/m);
    expect(out).toMatch(/^airbnb\s+booking\s+active\s.*new$/m);
    expect(out).toMatch(/moved \(was \d{4}-\d{2}-\d{2} – \d{4}-\d{2}-\d{2}\)/);
    expect(out).toContain("temporary database deleted");

    const dbPath = /database\s+(\S+calsync\.db) \(temporary\)/.exec(out)?.[1];
    expect(dbPath).toBeDefined();
    expect(existsSync(dbPath!)).toBe(false);
    // The token is a secret even in a demo: only its prefix is shown.
    expect(out).not.toMatch(/cs_[0-9A-Za-z]{32}/);
  });

  it("prints only {first, second} Sync responses with --json", { timeout: DEMO_TIMEOUT }, async () => {
    const result = await runBin(["demo", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const { first, second, ...rest } = JSON.parse(result.stdout) as { first: SyncResponse; second: SyncResponse };
    expect(rest).toEqual({});
    expect(first).toMatchObject({ ok: false, syncedCalendars: 4, propertiesChecked: 1, failed: 1 });
    expect(first.results.map((r) => r.source)).toEqual(["airbnb", "booking", "vrbo", "expedia"]);
    expect(first.results[3]?.result.error?.code).toBe("not_icalendar");
    const counts = second.results.map((r) => [r.source, r.result.reservationsCreated, r.result.reservationsUpdated, r.result.reservationsCancelled]);
    expect(counts).toEqual([
      ["airbnb", 1, 1, 1],
      ["booking", 0, 0, 0],
      ["vrbo", 0, 0, 0],
      ["expedia", 0, 0, 0],
    ]);
  });

  it("keeps its database with --keep, and the CLI can read it afterwards", { timeout: DEMO_TIMEOUT }, async () => {
    const result = await runBin(["demo", "--json", "--keep"]);
    expect(result.code, result.stderr).toBe(0);
    const dir = /Kept the demo database in (\S+)/.exec(result.stderr)?.[1];
    expect(dir).toBeDefined();
    kept.push(dir!);
    const listed = await runBin(["reservations", "--json", "--db", `${dir}/calsync.db`]);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as Array<{ source: string; status: string }>;
    expect(rows.filter((r) => r.status === "cancelled")).toEqual([expect.objectContaining({ source: "airbnb" })]);
    expect(rows.filter((r) => r.status === "active")).toHaveLength(8);
  });

  it("stops its servers and deletes its temporary folder when interrupted", async () => {
    const controller = new AbortController();
    let seen: { dir: string; feedsUrl: string; serverUrl: string } | undefined;
    const demo = runDemo(
      { signal: controller.signal },
      {
        ready(facts) {
          seen = facts;
          controller.abort(new Error("Ctrl-C"));
        },
        firstSync: () => expect.unreachable("the demo went on after the interrupt"),
      },
    );
    await expect(demo).rejects.toThrow();
    expect(seen).toBeDefined();
    expect(existsSync(seen!.dir)).toBe(false);
    await expect(fetch(`${seen!.serverUrl}/healthz`)).rejects.toThrow();
    await expect(fetch(`${seen!.feedsUrl}/feeds/airbnb`)).rejects.toThrow();
  });
});

describe("the demo's bundled feeds", () => {
  const files = readdirSync(DEMO_FEEDS_DIR).filter((name) => name.endsWith(".ics"));

  it("ship with the package in demo/feeds/", () => {
    expect(files.sort()).toEqual(["airbnb-changed.ics", "airbnb.ics", "booking.ics", "vrbo.ics"]);
    expect(existsSync(new URL("maintenance.html", DEMO_FEEDS_DIR))).toBe(true);
  });

  it.each(files)("%s parses into reservations dated from today, whatever today is", (file) => {
    const now = new Date();
    const text = fillDates(readFileSync(new URL(file, DEMO_FEEDS_DIR), "utf8"), now);
    expect(text).not.toContain("{{");
    const parsed = parseFeed(text, { source: file.startsWith("airbnb") ? "airbnb" : file.startsWith("booking") ? "booking" : "vrbo", now });
    if (!parsed.ok) throw new Error(`${file}: ${parsed.error.message}`);
    expect(parsed.events.length).toBeGreaterThanOrEqual(2);
    // Every feed has something coming up, so no demo ever shows only history.
    expect(parsed.events.some((event) => event.start > day(0))).toBe(true);
  });

  it("fills date placeholders relative to today and refuses unknown ones", () => {
    const now = new Date(2031, 0, 30, 12, 0, 0);
    expect(fillDates("DTSTART;VALUE=DATE:{{+3}}", now)).toBe("DTSTART;VALUE=DATE:20310202");
    expect(fillDates("DTEND;VALUE=DATE:{{-30}}", now)).toBe("DTEND;VALUE=DATE:20301231");
    expect(fillDates("DTSTAMP:{{now}}", now)).toMatch(/^DTSTAMP:20310130T\d{6}Z$/);
    expect(() => fillDates("{{tomorrow}}", now)).toThrow(/unknown placeholder/);
  });
});
