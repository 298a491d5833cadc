// `calsync sync --local` in-process: the human report, progress on a terminal, private networks, timeouts.
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day } from "./helpers/ics.js";

const { tmp, feeds } = useCliFixtures();

/** A feed with one upcoming three-night stay per UID, a week apart. */
function ics(...uids: string[]): string {
  return buildIcs(uids.map((uid, i) => ({ uid, start: day(10 + i * 7), end: day(13 + i * 7), summary: `Reserved ${uid}` })));
}

/** A database with owner Ann, property "Sea View Loft" and one calendar per feed. */
async function setup(calendars: Array<{ url: string; source: string }>) {
  const db = tmp.db();
  await runCli(["owner", "add", "Ann", "--db", db]);
  const property = JSON.parse((await runCli(["property", "add", "Sea View Loft", "--json", "--db", db])).stdout);
  for (const { url, source } of calendars) {
    const added = await runCli(["calendar", "add", "--property", property.id, "--url", url, "--source", source, "--db", db]);
    expect(added.code, added.stderr).toBe(0);
  }
  return { db, propertyId: property.id as string };
}

const sync = (db: string, ...flags: string[]) =>
  runCli(["sync", "--local", "--allow-private-networks", "--db", db, ...flags]);

describe("calsync sync --local, for people", () => {
  it("prints one row per calendar with counts and the error, then a summary, and exits 3", async () => {
    const { db } = await setup([
      { url: feeds.url("/ok.ics", { body: ics("a1", "a2") }), source: "airbnb" },
      { url: feeds.url("/down.ics?key=s3cr3t", { status: 503, body: "maintenance" }), source: "booking" },
    ]);
    const result = await sync(db);
    expect(result.code).toBe(3);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toMatch(/^PROPERTY\s+SOURCE\s+STATUS\s+FOUND\s+CREATED\s+UPDATED\s+CANCELLED\s+ERROR$/);
    expect(lines[1]).toMatch(/^Sea View Loft\s+airbnb\s+ok\s+2\s+2\s+0\s+0$/);
    expect(lines[2]).toMatch(/^Sea View Loft\s+booking\s+failed\s+-\s+-\s+-\s+-\s+http_error: .*503/);
    expect(result.stdout).toMatch(/Synced 2 calendars of 1 property: 1 ok, 1 failed; 2 created, 0 updated, 0 cancelled/);
    expect(result.stdout).not.toContain("s3cr3t");
    expect(result.stdout).not.toContain("\x1b[");
  });

  it("says so when the owner has no calendars, and exits 0", async () => {
    const { db } = await setup([]);
    const result = await sync(db);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^No calendars to sync \(1 property checked\)/);
  });

  it("marks a dry run in the summary", async () => {
    const { db } = await setup([{ url: feeds.url("/dry.ics", { body: ics("d1") }), source: "vrbo" }]);
    const result = await sync(db, "--dry-run");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/dry run, nothing was written/);
  });

  it("uses no colours when NO_COLOR is set, even on a terminal", async () => {
    const { db } = await setup([{ url: feeds.url("/nocolor.ics", { body: ics("n1") }), source: "airbnb" }]);
    const result = await runCli(["sync", "--local", "--allow-private-networks", "--db", db], {
      stdoutTTY: true,
      env: { NO_COLOR: "1" },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("\x1b[");
  });

  it("shows the last sync's outcome in calendar list", async () => {
    const { db } = await setup([
      { url: feeds.url("/list-ok.ics", { body: ics("l1") }), source: "airbnb" },
      { url: feeds.url("/list-down.ics", { status: 503 }), source: "booking" },
    ]);
    await sync(db);
    const listed = await runCli(["calendar", "list", "--db", db]);
    expect(listed.stdout).toMatch(/airbnb .* ok\n/);
    expect(listed.stdout).toMatch(/booking .* failed: http_error/);
  });
});

describe("calsync sync --local, progress and flags", () => {
  it("draws a progress line on stderr when it is a terminal, keeping stdout pure JSON", async () => {
    const { db } = await setup([
      { url: feeds.url("/p1.ics", { body: ics("p1") }), source: "airbnb" },
      // Other nights than p1's: a double booking would add its warning after the progress line.
      { url: feeds.url("/p2.ics", { body: buildIcs([{ uid: "p2", start: day(20), end: day(23), summary: "Reserved p2" }]) }), source: "booking" },
    ]);
    const result = await runCli(["sync", "--local", "--allow-private-networks", "--json", "--db", db], { stderrTTY: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("Fetching 2 calendar feeds…");
    expect(result.stderr).toContain("Synced 2/2");
    expect(result.stderr.endsWith("\r\x1b[2K")).toBe(true);
    expect(JSON.parse(result.stdout).syncedCalendars).toBe(2);
  });

  it("prints nothing on stderr when it is not a terminal", async () => {
    const { db } = await setup([{ url: feeds.url("/quiet.ics", { body: ics("q1") }), source: "airbnb" }]);
    const result = await sync(db, "--json");
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
  });

  it("refuses loopback feeds unless private networks are allowed by flag or environment", async () => {
    const { db } = await setup([{ url: feeds.url("/private.ics", { body: ics("x1") }), source: "airbnb" }]);
    const refused = await runCli(["sync", "--local", "--json", "--db", db]);
    expect(refused.code).toBe(3);
    expect(JSON.parse(refused.stdout).results[0].result.error.code).toBe("blocked_address");

    const allowed = await runCli(["sync", "--local", "--json", "--db", db], { env: { CALSYNC_ALLOW_PRIVATE_NETWORKS: "1" } });
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout).results[0].result.reservationsCreated).toBe(1);
  });

  it("gives up on a feed after --timeout milliseconds", async () => {
    const { db } = await setup([{ url: feeds.url("/hangs.ics", { hang: true }), source: "airbnb" }]);
    const result = await sync(db, "--json", "--timeout", "300");
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout).results[0].result.error.code).toBe("timeout");
  });

  it("lists the stored reservations for people, filtered by status", async () => {
    const { db, propertyId } = await setup([{ url: feeds.url("/res.ics", { body: ics("r1", "r2") }), source: "airbnb" }]);
    await sync(db);
    const result = await runCli(["reservations", "--property", propertyId, "--status", "active", "--db", db]);
    expect(result.code).toBe(0);
    const [header, ...rows] = result.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^PROPERTY\s+SOURCE\s+KIND\s+STATUS\s+ARRIVAL\s+DEPARTURE\s+SUMMARY$/);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^Sea View Loft\s+airbnb\s+booking\s+active\s+\d{4}-\d{2}-\d{2}\s+\d{4}-\d{2}-\d{2}\s+Reserved r1$/);
    const cancelled = await runCli(["reservations", "--status", "cancelled", "--json", "--db", db]);
    expect(JSON.parse(cancelled.stdout)).toEqual([]);
  });
});
