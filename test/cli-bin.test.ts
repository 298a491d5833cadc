// The built CLI as a child process (`node bin/calsync.js`), end to end: real temp database, real loopback feeds.
import { describe, expect, it } from "vitest";
import { runBin } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day } from "./helpers/ics.js";

const { tmp, feeds } = useCliFixtures({ built: true });

/** A feed with one upcoming three-night stay per UID, a week apart. */
function ics(...uids: string[]): string {
  return buildIcs(uids.map((uid, i) => ({ uid, start: day(10 + i * 7), end: day(13 + i * 7), summary: `Reserved ${uid}` })));
}

/** Runs `calsync …argv --json` on `db`, expects exit `code`, and returns parsed stdout. */
async function json<T = any>(db: string, argv: string[], code = 0): Promise<T> {
  const result = await runBin([...argv, "--json", "--db", db]);
  expect(result.code, `${argv.join(" ")}: ${result.stderr}`).toBe(code);
  return JSON.parse(result.stdout) as T;
}

/** A database with owner Ann and property "Sea View Loft". */
async function setup() {
  const db = tmp.db();
  const owner = await json(db, ["owner", "add", "Ann"]);
  const property = await json(db, ["property", "add", "Sea View Loft"]);
  return { db, owner, property };
}

describe("calsync as a child process", () => {
  it("syncs good and failing feeds: exit 3 and the contract's JSON on stdout; exit 0 once only good feeds remain", async () => {
    const { db, property } = await setup();
    const good = await json(db, ["calendar", "add", "--property", property.id, "--source", "airbnb", "--url", feeds.url("/bin/good.ics", { body: ics("g1", "g2") })]);
    const bad = await json(db, ["calendar", "add", "--property", property.id, "--source", "booking", "--url", feeds.url("/bin/bad.ics", { status: 503 })]);

    const failing = await runBin(["sync", "--local", "--allow-private-networks", "--json", "--db", db]);
    expect(failing.code).toBe(3);
    expect(JSON.parse(failing.stdout)).toEqual({
      ok: false,
      syncedCalendars: 2,
      propertiesChecked: 1,
      failed: 1,
      durationMs: expect.any(Number),
      results: [
        {
          propertyId: property.id, propertyName: "Sea View Loft", source: "airbnb", ok: true,
          result: { status: "success", reservationsFound: 2, reservationsCreated: 2, reservationsUpdated: 0, reservationsCancelled: 0 },
        },
        {
          propertyId: property.id, propertyName: "Sea View Loft", source: "booking", ok: false,
          result: {
            status: "failed", reservationsFound: 0, reservationsCreated: 0, reservationsUpdated: 0, reservationsCancelled: 0,
            error: { code: "http_error", message: expect.any(String), httpStatus: 503 },
          },
        },
      ],
    });
    expect(failing.stderr).toBe("");

    await json(db, ["calendar", "remove", bad.id]);
    const fine = await runBin(["sync", "--local", "--allow-private-networks", "--json", "--db", db]);
    expect(fine.code).toBe(0);
    const response = JSON.parse(fine.stdout);
    expect(response).toMatchObject({ ok: true, syncedCalendars: 1, failed: 0 });
    expect(response.results[0].result).toEqual({
      status: "success", reservationsFound: 2, reservationsCreated: 0, reservationsUpdated: 0, reservationsCancelled: 0,
    });
    expect(good.source).toBe("airbnb");
  });

  it("writes nothing on --dry-run", async () => {
    const { db, property } = await setup();
    await json(db, ["calendar", "add", "--property", property.id, "--url", feeds.url("/bin/dry.ics", { body: ics("d1", "d2") })]);
    const dry = await runBin(["sync", "--local", "--allow-private-networks", "--dry-run", "--json", "--db", db]);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout).results[0].result.reservationsCreated).toBe(2);
    expect(await json(db, ["reservations"])).toEqual([]);
    // Not even the feed's content hash was kept: the real run still creates both.
    const real = await runBin(["sync", "--local", "--allow-private-networks", "--json", "--db", db]);
    expect(JSON.parse(real.stdout).results[0].result.reservationsCreated).toBe(2);
  });

  it("stops a feed that would cancel every upcoming stay, until --force", async () => {
    const { db, property } = await setup();
    const route = "/bin/guard.ics";
    await json(db, ["calendar", "add", "--property", property.id, "--url", feeds.url(route, { body: ics("s1", "s2", "s3") })]);
    await runBin(["sync", "--local", "--allow-private-networks", "--db", db]);

    feeds.url(route, { body: ics() });
    const guarded = await runBin(["sync", "--local", "--allow-private-networks", "--json", "--db", db]);
    expect(guarded.code).toBe(3);
    expect(JSON.parse(guarded.stdout).results[0].result.error.code).toBe("suspicious_feed");
    expect(await json(db, ["reservations", "--status", "active"])).toHaveLength(3);

    const forced = await runBin(["sync", "--local", "--allow-private-networks", "--force", "--json", "--db", db]);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout).results[0].result).toMatchObject({ status: "success", reservationsCancelled: 3 });
    expect(await json(db, ["reservations", "--status", "cancelled"])).toHaveLength(3);
  });

  it("lists reservations in the contract's shape", async () => {
    const { db, property } = await setup();
    const calendar = await json(db, ["calendar", "add", "--property", property.id, "--source", "vrbo", "--url", feeds.url("/bin/res.ics", { body: ics("v1") })]);
    await runBin(["sync", "--local", "--allow-private-networks", "--db", db]);
    expect(await json(db, ["reservations", "--property", property.id])).toEqual([
      {
        id: expect.any(String), propertyId: property.id, calendarId: calendar.id, source: "vrbo", uid: "v1",
        kind: "booking", status: "active", start: day(10), end: day(13), arrival: day(10), departure: day(13), summary: "Reserved v1",
        echoOf: null,
      },
    ]);
  });

  it("shows a new token once, and never again", async () => {
    const { db } = await setup();
    const created = await json(db, ["token", "create", "--name", "backend", "--expires-in", "30d"]);
    expect(created.token).toMatch(/^cs_[0-9A-Za-z]{32}$/);
    for (const args of [["token", "list"], ["token", "list", "--json"]]) {
      const listed = await runBin([...args, "--db", db]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain("backend");
      expect(listed.stdout).not.toContain(created.token);
    }
  });

  it("never shows a feed URL's secret query in calendar list", async () => {
    const { db, property } = await setup();
    const url = `${feeds.url("/bin/secret.ics", { body: ics() })}?s=t0ps3cr3tvalue`;
    await json(db, ["calendar", "add", "--property", property.id, "--url", url]);
    for (const args of [["calendar", "list"], ["calendar", "list", "--json"]]) {
      const listed = await runBin([...args, "--db", db]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain("127.0.0.1");
      expect(listed.stdout).not.toContain("t0ps3cr3tvalue");
    }
  });

  it("exits 2 on a bad flag, with usage on stderr and nothing on stdout", async () => {
    const result = await runBin(["sync", "--local", "--frobnicate", "--db", tmp.db()]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe("error: unknown option '--frobnicate'\n(run 'calsync sync --help' for usage)\n");
  });
});
