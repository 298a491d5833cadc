// `calsync reservation add|update|cancel` and `calsync availability` on this machine's database (--db), as a
// user runs them: the built CLI as a child process, a real SQLite file, channel feeds on a loopback server.
// The refresh before a check syncs the owner, so a booking a channel took after the last sync is seen.
import { describe, expect, it } from "vitest";
import { runBin, runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day } from "./helpers/ics.js";
import { sqliteKind } from "./helpers/stores.js";

// Each case starts several CLI processes (a second or more each on a loaded machine): a budget beyond the default.
const CHILDREN = { timeout: 120_000 };

const { tmp, feeds } = useCliFixtures({ built: true });

const feed = (...stays: Array<[uid: string, arrival: number, departure: number]>) =>
  buildIcs(stays.map(([uid, a, d]) => ({ uid, start: day(a), end: day(d), summary: "Reserved" })));

let count = 0;
/** A database with owner Ann, one property and an airbnb calendar on `body`, synced once. */
async function setup(body: string) {
  const db = tmp.db();
  const path = `/airbnb-${++count}.ics`;
  await runCli(["owner", "add", "Ann", "--db", db]);
  const property = JSON.parse((await runCli(["property", "add", "Sea View Loft", "--json", "--db", db])).stdout);
  const added = await runCli(["calendar", "add", "--property", property.id, "--url", feeds.url(path, { body }), "--source", "airbnb", "--db", db]);
  expect(added.code, added.stderr).toBe(0);
  const synced = await runCli(["sync", "--local", "--allow-private-networks", "--db", db]);
  expect(synced.code, synced.stderr).toBe(0);
  return { db, path, propertyId: property.id as string };
}

/** The child process, on the local database with loopback feeds allowed. */
const local = (db: string, ...argv: string[]) => runBin([...argv, "--db", db]);
const reservations = async (db: string, ...flags: string[]) =>
  JSON.parse((await runBin(["reservations", "--json", "--db", db, ...flags])).stdout) as Array<Record<string, unknown>>;
const icsDate = (offset: number) => day(offset).replaceAll("-", "");
/** Makes every calendar last fetched an hour ago: a refresh skips one fetched in the last minute (CONTRACT §14). */
const ageFetches = (db: string) =>
  sqliteKind().query(db, "UPDATE calendars SET last_synced_at = ? WHERE last_synced_at IS NOT NULL", [new Date(Date.now() - 3_600_000).toISOString()]);

describe("calsync reservation add --db", CHILDREN, () => {
  it("stores a direct stay that `reservations` lists and the outbound feed exports", async () => {
    const { db, propertyId } = await setup(feed(["a1", 10, 13]));
    const added = await local(db, "reservation", "add", "--property", propertyId, "--arrival", day(60), "--departure", day(63), "--summary", "Ana (phone)", "--allow-private-networks");
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(new RegExp(`^Added a booking at "Sea View Loft": ${day(60)} → ${day(63)} \\(3 nights\\), "Ana \\(phone\\)" \\(rsv_\\S+\\)\\n$`));
    expect(added.stderr).toBe("");

    const json = await local(db, "reservation", "add", "--property", propertyId, "--arrival", day(70), "--departure", day(71), "--block", "--note", "boiler", "--no-refresh", "--json");
    expect(json.code, json.stderr).toBe(0);
    const block = JSON.parse(json.stdout);
    expect(block).toMatchObject({ propertyId, source: "direct", kind: "block", status: "active", arrival: day(70), departure: day(71), note: "boiler" });

    const rows = await reservations(db);
    expect(rows.filter((r) => r.source === "direct").map((r) => [r.arrival, r.departure])).toEqual([[day(60), day(63)], [day(70), day(71)]]);
    const exported = await runBin(["export", "--property", propertyId, "--db", db]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(`DTSTART;VALUE=DATE:${icsDate(60)}`);
    expect(exported.stdout).toContain(`DTSTART;VALUE=DATE:${icsDate(70)}`);
    // The owner's words stay out of the feed.
    expect(exported.stdout).not.toContain("Ana");
  });

  it("refreshes the channels first: a booking added after the last sync refuses the nights with exit 6", async () => {
    const { db, path, propertyId } = await setup(feed(["a1", 10, 13]));
    await ageFetches(db);
    feeds.setRoute(path, { body: feed(["a1", 10, 13], ["late", 30, 33]) });
    const args = ["reservation", "add", "--property", propertyId, "--arrival", day(31), "--departure", day(34)];
    const taken = await local(db, ...args, "--allow-private-networks", "--json");
    expect(taken.code).toBe(6);
    expect(taken.stdout).toBe("");
    expect(taken.stderr).toContain("the nights are taken by this stay:");
    expect(taken.stderr).toMatch(new RegExp(`^  airbnb\\s+${day(30)} → ${day(33)}  rsv_\\S+$`, "m"));
    expect((await reservations(db)).some((r) => r.source === "direct")).toBe(false);
  });

  it("with --no-refresh checks the channels as last synced, fetching nothing", async () => {
    const { db, path, propertyId } = await setup(feed(["a1", 10, 13]));
    feeds.setRoute(path, { body: feed(["a1", 10, 13], ["late", 30, 33]) });
    const before = feeds.requests.length;
    const added = await local(db, "reservation", "add", "--property", propertyId, "--arrival", day(31), "--departure", day(34), "--no-refresh", "--allow-private-networks");
    expect(added.code, added.stderr).toBe(0);
    expect(feeds.requests.length).toBe(before);
    // Nights the last sync knew of are still refused.
    const known = await local(db, "reservation", "add", "--property", propertyId, "--arrival", day(12), "--departure", day(14), "--no-refresh");
    expect(known.code).toBe(6);
    expect(known.stderr).toMatch(new RegExp(`airbnb\\s+${day(10)} → ${day(13)}`));
  });

  it("names a channel calendar it could not refresh, by its channel, and checks it as last stored", async () => {
    const { db, propertyId } = await setup(feed(["a1", 10, 13]));
    await ageFetches(db);
    // Without --allow-private-networks the loopback feed is refused, as in `sync --local`.
    const added = await runBin(["reservation", "add", "--property", propertyId, "--arrival", day(40), "--departure", day(42), "--db", db]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toMatch(/^\[warn\] Airbnb \(cal_\S+\) could not be refreshed just now: .+; checked as last stored$/m);
  });
});

describe("calsync reservation update and cancel --db", CHILDREN, () => {
  it("moves a direct stay, refuses taken nights with exit 6, cancels it, and refuses a channel's stay", async () => {
    const { db, propertyId } = await setup(feed(["a1", 10, 13]));
    const created = JSON.parse((await local(db, "reservation", "add", "--property", propertyId, "--arrival", day(20), "--departure", day(22), "--json", "--allow-private-networks")).stdout);
    const moved = await local(db, "reservation", "update", created.id, "--departure", day(24), "--summary", "Ana", "--json", "--allow-private-networks");
    expect(moved.code, moved.stderr).toBe(0);
    expect(JSON.parse(moved.stdout)).toMatchObject({ id: created.id, arrival: day(20), departure: day(24), summary: "Ana" });

    const clash = await local(db, "reservation", "update", created.id, "--arrival", day(12), "--allow-private-networks");
    expect(clash.code).toBe(6);
    expect(clash.stderr).toMatch(new RegExp(`^  airbnb\\s+${day(10)} → ${day(13)}  rsv_\\S+$`, "m"));

    const cancelled = await local(db, "reservation", "cancel", created.id);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toBe(`Cancelled the booking at "Sea View Loft": ${day(20)} → ${day(24)} (4 nights), "Ana" (${created.id})\n`);
    expect((await reservations(db, "--status", "cancelled")).map((r) => r.id)).toEqual([created.id]);

    const channel = (await reservations(db)).find((r) => r.source === "airbnb")!;
    const readOnly = await local(db, "reservation", "cancel", String(channel.id));
    expect(readOnly.code).toBe(1);
    expect(readOnly.stderr).toMatch(/only direct stays can be changed \(not_direct\)/);
    const missing = await local(db, "reservation", "update", "res_nobody", "--note", "x");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/not found: no such reservation/);
  });
});

describe("calsync availability --db", CHILDREN, () => {
  it("answers the Availability document with --json and month grids for people", async () => {
    const { db, propertyId } = await setup(feed(["a1", 10, 13]));
    await local(db, "reservation", "add", "--property", propertyId, "--arrival", day(14), "--departure", day(15), "--block", "--no-refresh");
    const json = await local(db, "availability", "--property", propertyId, "--from", day(9), "--to", day(16), "--json");
    expect(json.code, json.stderr).toBe(0);
    const availability = JSON.parse(json.stdout);
    expect(availability).toMatchObject({ propertyId, from: day(9), to: day(16) });
    expect(availability.nights.map((n: { date: string; available: boolean }) => [n.date, n.available])).toEqual(
      [9, 10, 11, 12, 13, 14, 15].map((i) => [day(i), ![10, 11, 12, 14].includes(i)]),
    );

    const grid = await local(db, "availability", "--property", propertyId, "--from", day(9), "--to", day(16));
    expect(grid.code, grid.stderr).toBe(0);
    expect(grid.stdout).toContain(`${day(9)} → ${day(16)}: 4 nights taken, 3 free of 7 (taken nights in [brackets])`);
    expect(grid.stdout).toContain(`[${Number(day(10).slice(8))}]`);
  });

  it("exits 2 for a bad date or range and 1 for a property it does not know", async () => {
    const { db, propertyId } = await setup(feed(["a1", 10, 13]));
    const bad = await local(db, "availability", "--property", propertyId, "--from", "2027-02-30");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"2027-02-30" is not a date/);
    const long = await local(db, "availability", "--property", propertyId, "--from", day(0), "--to", day(800));
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/--to: .*at most 732 nights/);
    const missing = await local(db, "availability", "--property", "prp_nobody");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/not found: no such property/);
  });
});

describe("bad input on the local database", CHILDREN, () => {
  it("exits 2 for a bad date before opening anything, and naming the flag the service refused", async () => {
    const { db, propertyId } = await setup(feed(["a1", 10, 13]));
    const notADate = await local(db, "reservation", "add", "--property", propertyId, "--arrival", "12/03/2027", "--departure", day(4));
    expect(notADate.code).toBe(2);
    expect(notADate.stderr).toMatch(/is not a date: write it as YYYY-MM-DD/);
    const past = await local(db, "reservation", "add", "--property", propertyId, "--arrival", day(-5), "--departure", day(-2), "--no-refresh");
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(/^error: --departure: the stay is over/m);
    const tooLong = await local(db, "reservation", "add", "--property", propertyId, "--arrival", day(20), "--departure", day(400), "--no-refresh");
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toMatch(/--departure: /);
    expect((await reservations(db)).some((r) => r.source === "direct")).toBe(false);
  });

  it("exits 2 for --allow-private-networks with a server", async () => {
    const result = await runBin(["reservation", "add", "--property", "p", "--arrival", day(60), "--departure", day(61), "--allow-private-networks", "--base-url", "http://127.0.0.1:9"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--allow-private-networks only applies to the local database/);
  });
});

describe("the local refresh before a check (CONTRACT §14)", CHILDREN, () => {
  /** Owner Ann with Loft and Barn, one airbnb calendar each on the given routes, never synced. */
  async function twoProperties(loftRoute: Parameters<typeof feeds.url>[1], barnRoute: Parameters<typeof feeds.url>[1]) {
    const db = tmp.db();
    await runCli(["owner", "add", "Ann", "--db", db]);
    const paths = { loft: `/loft-${++count}.ics`, barn: `/barn-${++count}.ics` };
    const ids: Record<string, string> = {};
    for (const [name, route] of [["loft", loftRoute], ["barn", barnRoute]] as const) {
      ids[name] = JSON.parse((await runCli(["property", "add", name, "--json", "--db", db])).stdout).id;
      const added = await runCli(["calendar", "add", "--property", ids[name]!, "--url", feeds.url(paths[name], route), "--source", "airbnb", "--db", db]);
      expect(added.code, added.stderr).toBe(0);
    }
    const fetchesOf = (path: string) => feeds.requests.filter((r) => r.path.startsWith(path)).length;
    return { db, loft: ids.loft!, fetches: () => [fetchesOf(paths.loft), fetchesOf(paths.barn)] };
  }

  it("fetches only the property's calendars, and none fetched in the last minute", async () => {
    const { db, loft, fetches } = await twoProperties({ body: feed(["a1", 10, 13]) }, { body: feed(["b1", 10, 13]) });
    const first = await local(db, "reservation", "add", "--property", loft, "--arrival", day(20), "--departure", day(22), "--allow-private-networks");
    expect(first.code, first.stderr).toBe(0);
    expect(fetches()).toEqual([1, 0]);
    const second = await local(db, "reservation", "add", "--property", loft, "--arrival", day(11), "--departure", day(12), "--allow-private-networks");
    expect(second.code).toBe(6);
    expect(fetches()).toEqual([1, 0]);
  });

  it("waits --refresh-timeout for a hanging channel, then checks it as last synced", async () => {
    const { db, loft } = await twoProperties({ hang: true }, { body: feed(["b1", 10, 13]) });
    const added = await local(db, "reservation", "add", "--property", loft, "--arrival", day(20), "--departure", day(22), "--refresh-timeout", "1000", "--allow-private-networks");
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toMatch(/^\[warn\] Airbnb \(cal_\S+\) could not be refreshed just now: no answer within 1000 ms/m);
  });

  it("counts no failure on a calendar that fails in a refresh", async () => {
    const { db, loft } = await twoProperties({ status: 500 }, { body: feed(["b1", 10, 13]) });
    for (const arrival of [20, 30]) {
      await ageFetches(db);
      const added = await local(db, "reservation", "add", "--property", loft, "--arrival", day(arrival), "--departure", day(arrival + 1), "--allow-private-networks");
      expect(added.code, added.stderr).toBe(0);
      expect(added.stderr).toMatch(/could not be refreshed just now: .*500/);
    }
    expect(await sqliteKind().query(db, "SELECT consecutive_failures, failing_since FROM calendars WHERE property_id = ? AND source = ?", [loft, "airbnb"])).toEqual([{ consecutive_failures: 0, failing_since: null }]);
    expect(await sqliteKind().query(db, "SELECT COUNT(*) AS runs FROM sync_runs")).toEqual([{ runs: 0 }]);
  });

  it("exits 2 for --refresh-timeout with a server", async () => {
    const result = await runBin(["reservation", "add", "--property", "p", "--arrival", day(60), "--departure", day(61), "--refresh-timeout", "1000", "--base-url", "http://127.0.0.1:9"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--refresh-timeout only applies to the local database/);
  });
});

describe("calsync conflicts with a direct stay", CHILDREN, () => {
  it("says to cancel the direct stay in calsync, not on a channel", async () => {
    const { db, path, propertyId } = await setup(feed(["a1", 10, 13]));
    const added = await local(db, "reservation", "add", "--property", propertyId, "--arrival", day(40), "--departure", day(43), "--no-refresh", "--json");
    expect(added.code, added.stderr).toBe(0);
    // The channel sells the same nights before it has read calsync's feed.
    feeds.setRoute(path, { body: feed(["a1", 10, 13], ["late", 41, 44]) });
    expect((await local(db, "sync", "--local", "--allow-private-networks")).code).toBe(0);

    const listed = await local(db, "conflicts");
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/direct/);
    expect(listed.stderr).toContain("1 double booking: cancel or move one stay of each: a channel's on that channel, a direct stay with calsync reservation cancel.");
  });
});
