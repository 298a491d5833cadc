// The two-way sync commands in-process: property feed, export (the same bytes the server serves),
// conflicts, and how `calsync sync --local` reports double bookings.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startServer } from "../src/server/index.js";
import { runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";

const { tmp, feeds } = useCliFixtures();
let count = 0;

const stay = (uid: string, from: number, to: number, summary = "Reserved"): IcsEvent => ({ uid, start: day(from), end: day(to), summary });

/** A database with owner Ann and "Sea View Loft" holding one calendar per feed (none synced yet). */
async function setup(calendars: Array<{ source: string; events?: IcsEvent[]; status?: number }>) {
  const db = tmp.db();
  await runCli(["owner", "add", "Ann", "--db", db]);
  const property = JSON.parse((await runCli(["property", "add", "Sea View Loft", "--json", "--db", db])).stdout);
  for (const { source, events = [], status } of calendars) {
    const url = feeds.url(`/two-way/${++count}/${source}.ics`, { status, body: buildIcs(events) });
    const added = await runCli(["calendar", "add", "--property", property.id, "--url", url, "--source", source, "--db", db]);
    expect(added.code, added.stderr).toBe(0);
  }
  return { db, propertyId: property.id as string };
}

const sync = (db: string, ...flags: string[]) => runCli(["sync", "--local", "--allow-private-networks", "--db", db, ...flags]);

/** Airbnb and Booking.com both sold nights 13 and 14 from today. */
const doubleBooked = [
  { source: "airbnb", events: [stay("a1", 10, 15), stay("a2", 30, 32, "Airbnb (Not available)")] },
  { source: "booking", events: [stay("b1", 13, 18, "CLOSED - Not available")] },
];

describe("calsync property feed", () => {
  it("prints {propertyId, url} with --json, creating the token once and keeping it", async () => {
    const { db, propertyId } = await setup([]);
    const first = await runCli(["property", "feed", propertyId, "--json", "--db", db]);
    expect(first.code, first.stderr).toBe(0);
    const body = JSON.parse(first.stdout);
    expect(body).toEqual({ propertyId, url: expect.stringMatching(/^http:\/\/localhost:8787\/ical\/[A-Za-z0-9]{32}\.ics$/) });
    const again = JSON.parse((await runCli(["property", "feed", propertyId, "--json", "--db", db])).stdout);
    expect(again.url).toBe(body.url);
  });

  it("issues a new URL with --rotate", async () => {
    const { db, propertyId } = await setup([]);
    const before = JSON.parse((await runCli(["property", "feed", propertyId, "--json", "--db", db])).stdout).url;
    const rotated = await runCli(["property", "feed", propertyId, "--rotate", "--db", db]);
    expect(rotated.code).toBe(0);
    expect(rotated.stdout.trim()).toMatch(/^http:\/\/localhost:8787\/ical\/[A-Za-z0-9]{32}\.ics$/);
    expect(rotated.stdout.trim()).not.toBe(before);
    expect(rotated.stderr).toMatch(/old one now answers 404/);
  });

  it("switches the feed off with --revoke until a new URL is asked for", async () => {
    const { db, propertyId } = await setup([]);
    const before = JSON.parse((await runCli(["property", "feed", propertyId, "--json", "--db", db])).stdout).url as string;
    const server = await startServer({ dbPath: db, port: 0, log: () => {} });
    try {
      const served = (url: string) => fetch(url.replace("http://localhost:8787", server.url)).then(async (r) => (await r.text(), r.status));
      expect(await served(before)).toBe(200);
      const revoked = await runCli(["property", "feed", propertyId, "--revoke", "--json", "--db", db]);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(JSON.parse(revoked.stdout)).toEqual({ propertyId, url: null });
      expect(await served(before)).toBe(404);
      const again = await runCli(["property", "feed", propertyId, "--revoke", "--db", db]);
      expect(again.stderr).toContain(`Feed of "Sea View Loft" (${propertyId}) switched off`);
      const fresh = JSON.parse((await runCli(["property", "feed", propertyId, "--json", "--db", db])).stdout).url as string;
      expect(fresh).not.toBe(before);
      expect(await served(fresh)).toBe(200);
    } finally {
      await server.close();
    }
    const both = await runCli(["property", "feed", propertyId, "--rotate", "--revoke", "--db", db]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--rotate and --revoke/);
  });

  it("builds the URL on --base-url, else CALSYNC_BASE_URL, keeping a path prefix", async () => {
    const { db, propertyId } = await setup([]);
    const flag = await runCli(["property", "feed", propertyId, "--base-url", "https://cal.example.com/calsync/", "--db", db]);
    expect(flag.stdout).toMatch(/^https:\/\/cal\.example\.com\/calsync\/ical\/[A-Za-z0-9]{32}\.ics\n$/);
    const env = await runCli(["property", "feed", propertyId, "--db", db], { env: { CALSYNC_BASE_URL: "https://env.example.com" } });
    expect(env.stdout).toMatch(/^https:\/\/env\.example\.com\/ical\//);
    const bad = await runCli(["property", "feed", propertyId, "--base-url", "ftp://x", "--db", db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--base-url must be an http/);
    expect((await runCli(["property", "feed", "prp_nope", "--db", db])).code).toBe(1);
  });
});

describe("calsync export", () => {
  it("writes byte for byte what the server serves at the feed URL, with and without --exclude", async () => {
    const { db, propertyId } = await setup(doubleBooked);
    expect((await sync(db)).code).toBe(0);
    const { url } = JSON.parse((await runCli(["property", "feed", propertyId, "--json", "--db", db])).stdout);
    const server = await startServer({ dbPath: db, port: 0, log: () => {} });
    try {
      const served = new URL(url).pathname;
      for (const [flags, query] of [[[], ""], [["--exclude", "airbnb"], "?exclude=airbnb"]] as const) {
        const exported = await runCli(["export", "--property", propertyId, ...flags, "--db", db]);
        expect(exported.code, exported.stderr).toBe(0);
        const body = await (await fetch(`${server.url}${served}${query}`)).text();
        expect(exported.stdout).toBe(body);
      }
    } finally {
      await server.close({ graceMs: 1000 });
    }
  });

  it("writes the feed to --out and says how many events it holds", async () => {
    const { db, propertyId } = await setup(doubleBooked);
    await sync(db);
    const out = path.join(tmp.dir, "loft.ics");
    const result = await runCli(["export", "--property", propertyId, "--exclude", "booking", "--out", out, "--db", db]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`Wrote 2 events of "Sea View Loft" (without booking) to ${out}.\n`);
    const file = readFileSync(out, "utf8");
    expect(file.startsWith("BEGIN:VCALENDAR\r\n")).toBe(true);
    expect(file.match(/BEGIN:VEVENT/g)).toHaveLength(2);
  });

  it("prints {propertyId, exclude, events, etag, out, ics} with --json", async () => {
    const { db, propertyId } = await setup(doubleBooked);
    await sync(db);
    const result = await runCli(["export", "--property", propertyId, "--exclude", "airbnb,booking", "--json", "--db", db]);
    expect(JSON.parse(result.stdout)).toEqual({
      propertyId,
      exclude: ["airbnb", "booking"],
      events: 0,
      etag: expect.stringMatching(/^"/),
      out: null,
      ics: expect.stringMatching(/^BEGIN:VCALENDAR\r\n[\s\S]*END:VCALENDAR\r\n$/),
    });
  });

  it("refuses an unknown channel in --exclude as a usage error", async () => {
    const { db, propertyId } = await setup([]);
    const result = await runCli(["export", "--property", propertyId, "--exclude", "airbmb", "--db", db]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/unknown source "airbmb"/);
  });
});

describe("calsync conflicts", () => {
  it("lists the stored double bookings as JSON", async () => {
    const { db, propertyId } = await setup(doubleBooked);
    await sync(db);
    const result = await runCli(["conflicts", "--json", "--db", db]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      {
        propertyId,
        propertyName: "Sea View Loft",
        from: day(13),
        to: day(15),
        reservations: [
          { id: expect.stringMatching(/^rsv_/), source: "airbnb", summary: "Reserved" },
          { id: expect.stringMatching(/^rsv_/), source: "booking", summary: "CLOSED - Not available" },
        ],
      },
    ]);
    const other = JSON.parse((await runCli(["property", "add", "Cabin", "--json", "--db", db])).stdout);
    expect(JSON.parse((await runCli(["conflicts", "--property", other.id, "--json", "--db", db])).stdout)).toEqual([]);
  });

  it("shows a table for people, one row per reservation, and says so when there are none", async () => {
    const { db } = await setup(doubleBooked);
    const none = await runCli(["conflicts", "--db", db]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("");
    expect(none.stderr).toMatch(/No double bookings/);

    await sync(db);
    const result = await runCli(["conflicts", "--db", db]);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^PROPERTY\s+FROM\s+TO\s+NIGHTS\s+SOURCE\s+SUMMARY\s+RESERVATION$/);
    expect(lines[1]).toMatch(new RegExp(`^Sea View Loft\\s+${day(13)}\\s+${day(15)}\\s+2\\s+airbnb\\s+Reserved\\s+rsv_`));
    expect(lines[2]).toMatch(/^\s+booking\s+CLOSED - Not available\s+rsv_/);
    expect(lines).toHaveLength(3);
  });
});

describe("calsync sync --local with double bookings", () => {
  it("shows them in a section of their own, warns on stderr, and still exits 0", async () => {
    const { db } = await setup(doubleBooked);
    const result = await sync(db);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `Double bookings (1):\n  Sea View Loft, ${day(13)} → ${day(15)}: airbnb "Reserved", booking "CLOSED - Not available"\n`,
    );
    expect(result.stderr).toMatch(/1 double booking: the same nights are sold on more than one calendar/);
  });

  it("keeps exit code 3 when a calendar also failed, and prints the conflicts unchanged with --json", async () => {
    const { db } = await setup([...doubleBooked, { source: "vrbo", status: 503 }]);
    const result = await sync(db, "--json");
    expect(result.code).toBe(3);
    const body = JSON.parse(result.stdout);
    expect(body.failed).toBe(1);
    expect(body.conflicts).toMatchObject([{ from: day(13), to: day(15), reservations: [{ source: "airbnb" }, { source: "booking" }] }]);
  });

  it("prints no conflict section or warning when no night is sold twice", async () => {
    const { db } = await setup([{ source: "airbnb", events: [stay("a1", 10, 13)] }, { source: "booking", events: [stay("b1", 13, 15, "CLOSED - Not available")] }]);
    const result = await sync(db);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("Double bookings");
    expect(result.stderr).not.toContain("double booking");
  });
});
