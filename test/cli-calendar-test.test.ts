// `calsync calendar test` through the built CLI against loopback feeds: what a sync would import,
// the §6 JSON and exit codes, and no database opened or written. Also the HTML hint on `sync`.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runBin } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day } from "./helpers/ics.js";

const { tmp, feeds } = useCliFixtures({ built: true });

const HTML = { body: "<!DOCTYPE html><html><body>Lovely loft</body></html>", headers: { "content-type": "text/html" } };

/** Two stays, a block and a cancelled stay (left out of every count and of the nights). */
const GOOD_FEED = buildIcs([
  { uid: "s1", start: day(10), end: day(13), summary: "Reserved" },
  { uid: "s2", start: day(20), end: day(25), summary: "Reserved" },
  { uid: "b1", start: day(30), end: day(32), summary: "Airbnb (Not available)" },
  { uid: "gone", start: day(40), end: day(45), summary: "Reserved", status: "CANCELLED" },
]);

/** CALSYNC_DB pointing at a file that must never appear. */
const absentDb = () => path.join(tmp.dir, `absent-${Math.random().toString(36).slice(2)}`, "calsync.db");

describe("calsync calendar test", () => {
  it("prints what a sync would import as the §6 JSON, exit 0, without creating the database", async () => {
    const db = absentDb();
    const url = feeds.url("/good.ics", { body: GOOD_FEED });
    const result = await runBin(["calendar", "test", "--url", url, "--source", "airbnb", "--allow-private-networks", "--json"], { CALSYNC_DB: db });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      source: "airbnb",
      bookings: 2,
      blocks: 1,
      firstNight: day(10),
      lastNight: day(31),
      warnings: [],
    });
    expect(existsSync(db)).toBe(false);
    expect(existsSync(path.dirname(db))).toBe(false);
  });

  it("detects the source, reads CALSYNC_ALLOW_PRIVATE_NETWORKS and prints a summary for people", async () => {
    const url = feeds.url("/people.ics", { body: GOOD_FEED });
    const result = await runBin(["calendar", "test", "--url", url], { CALSYNC_DB: absentDb(), CALSYNC_ALLOW_PRIVATE_NETWORKS: "1" });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^source\s+other \(detected/m);
    expect(result.stdout).toMatch(/^bookings\s+2$/m);
    expect(result.stdout).toMatch(/^blocks\s+1$/m);
    expect(result.stdout).toMatch(new RegExp(`^first night\\s+${day(10)}$`, "m"));
    expect(result.stdout).toMatch(new RegExp(`^last night\\s+${day(31)}$`, "m"));
    expect(result.stdout).toMatch(/^warnings\s+none$/m);
    expect(result.stderr).toMatch(/calsync calendar add --property ID --url URL/);
  });

  it("lists an event whose dates cannot be read as an unreadable_event warning, and leaves it out of the counts", async () => {
    const body = GOOD_FEED.replace(`DTSTART;VALUE=DATE:${day(20).replaceAll("-", "")}`, "DTSTART;VALUE=DATE:2026XX01");
    expect(body).not.toBe(GOOD_FEED);
    const url = feeds.url("/damaged.ics", { body });
    const result = await runBin(["calendar", "test", "--url", url, "--allow-private-networks", "--json"], { CALSYNC_DB: absentDb() });
    expect(result.code, result.stderr).toBe(0);
    const preview = JSON.parse(result.stdout) as { bookings: number; warnings: Array<{ code: string; uid: string }> };
    expect(preview.bookings).toBe(1);
    expect(preview.warnings).toEqual([expect.objectContaining({ code: "unreadable_event", uid: "s2" })]);
  });

  it("gives null nights for a readable feed without events", async () => {
    const url = feeds.url("/empty-cal.ics", { body: buildIcs([]) });
    const result = await runBin(["calendar", "test", "--url", url, "--allow-private-networks", "--json"], { CALSYNC_DB: absentDb() });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ source: "other", bookings: 0, blocks: 0, firstNight: null, lastNight: null, warnings: [] });
  });

  it("answers an HTML page with exit 3 and not_icalendar", async () => {
    const url = feeds.url("/page.html", HTML);
    const result = await runBin(["calendar", "test", "--url", url, "--allow-private-networks", "--json"], { CALSYNC_DB: absentDb() });
    expect(result.code).toBe(3);
    const body = JSON.parse(result.stdout);
    expect(body).toEqual({ source: "other", error: { code: "not_icalendar", message: expect.stringMatching(/got HTML.*web page/) } });
    expect(result.stderr).toMatch(/^error: not_icalendar: feed is not an iCalendar file \(got HTML\)/m);
  });

  it("answers a 503 with exit 3 and http_error", async () => {
    const url = feeds.url("/down.ics", { status: 503 });
    const result = await runBin(["calendar", "test", "--url", url, "--allow-private-networks", "--json"], { CALSYNC_DB: absentDb() });
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toEqual({
      source: "other",
      error: { code: "http_error", message: "feed answered HTTP 503", httpStatus: 503 },
    });
    expect(result.stderr).toMatch(/^error: http_error: feed answered HTTP 503$/m);
  });

  it("refuses a loopback address unless allowed: exit 3, blocked_address, no request made", async () => {
    const url = feeds.url("/blocked.ics", { body: GOOD_FEED });
    const result = await runBin(["calendar", "test", "--url", url], { CALSYNC_DB: absentDb() });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: blocked_address: feed address 127\.0\.0\.1 is private or local/m);
    expect(result.stdout).toBe("");
    expect(feeds.requests.some((request) => request.path === "/blocked.ics")).toBe(false);
  });

  it("leaves an existing database exactly as it was", async () => {
    const dir = path.join(tmp.dir, "existing");
    mkdirSync(dir);
    const db = path.join(dir, "calsync.db");
    expect((await runBin(["owner", "add", "Ann", "--db", db])).code).toBe(0);
    const before = snapshot(dir);
    const env = { CALSYNC_DB: db };
    const runs = [
      ["--url", feeds.url("/again.ics", { body: GOOD_FEED }), "--allow-private-networks"],
      ["--url", feeds.url("/again-down.ics", { status: 503 }), "--allow-private-networks"],
      ["--url", feeds.url("/again-blocked.ics", { body: GOOD_FEED })],
    ];
    const codes = [];
    for (const argv of runs) codes.push((await runBin(["calendar", "test", ...argv], env)).code);
    expect(codes).toEqual([0, 3, 3]);
    expect(snapshot(dir)).toEqual(before);
  });

  it("treats a URL it cannot fetch as a usage error, exit 2", async () => {
    const result = await runBin(["calendar", "test", "--url", "ftp://example.com/a.ics"], { CALSYNC_DB: absentDb() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--url must be an http:\/\/, https:\/\/ or webcal:\/\/ address[\s\S]*calsync calendar test --help/);
  });

  it("refuses --db: the command has no database to choose", async () => {
    const result = await runBin(["calendar", "test", "--url", "https://example.com/a.ics", "--db", path.join(tmp.dir, "x.db")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown option '--db'/);
  });
});

describe("an Airbnb listing page where the export link belongs", () => {
  it("says so, and where Airbnb shows the export link, in calendar test", async () => {
    const url = feeds.url("/rooms/123", HTML);
    const result = await runBin(["calendar", "test", "--url", url, "--source", "airbnb", "--allow-private-networks", "--json"], { CALSYNC_DB: absentDb() });
    expect(result.code).toBe(3);
    const { error } = JSON.parse(result.stdout);
    expect(error.code).toBe("not_icalendar");
    expect(error.message).toMatch(/this is an Airbnb listing page, not a calendar export/);
    expect(error.message).toContain("Availability → Connect calendars → Export calendar");
  });

  it("says so in the result of sync --local too", async () => {
    const db = tmp.db();
    for (const argv of [["owner", "add", "Ann"], ["property", "add", "Loft"]]) expect((await runBin([...argv, "--db", db])).code).toBe(0);
    const property = JSON.parse((await runBin(["property", "list", "--json", "--db", db])).stdout)[0];
    const url = feeds.url("/rooms/456", HTML);
    expect((await runBin(["calendar", "add", "--property", property.id, "--url", url, "--db", db])).code).toBe(0);
    const result = await runBin(["sync", "--local", "--allow-private-networks", "--json", "--db", db]);
    expect(result.code).toBe(3);
    const { error } = JSON.parse(result.stdout).results[0].result;
    expect(error.code).toBe("not_icalendar");
    expect(error.message).toMatch(/looks like an Airbnb listing page/);
    expect(error.message).toContain("Availability → Connect calendars → Export calendar");
  });
});

/** Every file of `dir` with its size, modification time and content hash. */
function snapshot(dir: string): Record<string, { size: number; mtimeMs: number; sha256: string }> {
  const files: Record<string, { size: number; mtimeMs: number; sha256: string }> = {};
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name);
    const { size, mtimeMs } = statSync(file);
    files[name] = { size, mtimeMs, sha256: createHash("sha256").update(readFileSync(file)).digest("hex") };
  }
  return files;
}
