// Issue 19 end to end: the built CLI (`calsync sync --local`) against a loopback feed whose event a@x
// gets damaged the way real exports get damaged. A malformed event never changes what is stored.
import { Database } from "../src/store/sqlite/driver.js";
import { describe, expect, it } from "vitest";
import { runBin, runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { DAMAGES, damageEvent } from "./helpers/damage.js";
import { buildIcs, day } from "./helpers/ics.js";

const { tmp, feeds } = useCliFixtures({ built: true });

/** Three upcoming stays; a@x is the one that gets damaged. */
const STAYS = buildIcs([
  { uid: "a@x", start: day(10), end: day(13), summary: "Reserved" },
  { uid: "b@x", start: day(20), end: day(24), summary: "Reserved" },
  { uid: "c@x", start: day(30), end: day(32), summary: "Reserved" },
]);

let routes = 0;

/** A database with one Airbnb calendar served at a fresh path, synced once from STAYS (in-process: set-up only). */
async function syncedCalendar(): Promise<{ db: string; path: string }> {
  const db = tmp.db();
  const path = `/malformed-${++routes}.ics`;
  await runCli(["owner", "add", "Ann", "--db", db]);
  const property = JSON.parse((await runCli(["property", "add", "Sea View Loft", "--json", "--db", db])).stdout);
  const url = feeds.url(path, { body: STAYS, etag: '"v1"' });
  const added = await runCli(["calendar", "add", "--property", property.id, "--url", url, "--source", "airbnb", "--db", db]);
  expect(added.code, added.stderr).toBe(0);
  const first = await runCli(["sync", "--local", "--allow-private-networks", "--json", "--db", db]);
  expect(first.code, first.stderr).toBe(0);
  expect(JSON.parse(first.stdout).results[0].result.reservationsCreated).toBe(3);
  return { db, path };
}

/** `calsync reservations --json` as printed, byte for byte. */
async function reservationsJson(db: string): Promise<string> {
  const listed = await runBin(["reservations", "--json", "--db", db]);
  expect(listed.code, listed.stderr).toBe(0);
  return listed.stdout;
}

/** Every stored column of every reservation (details, raw and update times included). */
function storedRows(db: string): unknown[] {
  const sqlite = new Database(db, { readonly: true });
  try {
    return sqlite.prepare("SELECT * FROM reservations ORDER BY id").all();
  } finally {
    sqlite.close();
  }
}

describe("a malformed event never changes what is stored (calsync sync --local)", () => {
  it.each(DAMAGES.map((damage) => [damage.name, damage] as const))("%s: keeps a@x as stored, found 3, one warning", async (_name, damage) => {
    const { db, path } = await syncedCalendar();
    const listedBefore = await reservationsJson(db);
    const rowsBefore = storedRows(db);

    feeds.setRoute(path, { body: damageEvent(STAYS, "a@x", damage), etag: '"v2"' });
    const synced = await runBin(["sync", "--local", "--allow-private-networks", "--json", "--db", db]);
    expect(synced.code, synced.stderr).toBe(0);
    const { result } = JSON.parse(synced.stdout).results[0];
    expect(result).toMatchObject({
      status: "success",
      reservationsFound: 3,
      reservationsCreated: 0,
      reservationsUpdated: 0,
      reservationsCancelled: 0,
    });
    expect(result.warnings).toEqual([{ code: "unreadable_event", uid: "a@x", message: expect.any(String) }]);
    expect(synced.stderr).toMatch(/1 event with unreadable dates left as stored/);

    expect(await reservationsJson(db)).toBe(listedBefore);
    expect(storedRows(db)).toEqual(rowsBefore);
  });

  it("names the event in the table and warns again on the next sync of the same damaged feed", async () => {
    const { db, path } = await syncedCalendar();
    feeds.setRoute(path, { body: damageEvent(STAYS, "a@x", DAMAGES[3]!), etag: '"v2"' });
    await runBin(["sync", "--local", "--allow-private-networks", "--db", db]);
    // Same body, same ETag: a feed with unreadable events is read in full again, so the warning stays.
    const again = await runBin(["sync", "--local", "--allow-private-networks", "--db", db]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Sea View Loft\s+airbnb\s+ok\s+3\s+0\s+0\s+0/m);
    expect(again.stdout).toMatch(/Unreadable events \(1\)/);
    expect(again.stdout).toMatch(/Sea View Loft \(airbnb\): event "a@x": DTSTART "20271340" is not a real date \(no month 13\)/);
  });

  it("reads the stay again, unchanged, once the channel repairs the event", async () => {
    const { db, path } = await syncedCalendar();
    const before = await reservationsJson(db);
    feeds.setRoute(path, { body: damageEvent(STAYS, "a@x", DAMAGES[4]!), etag: '"v2"' });
    await runBin(["sync", "--local", "--allow-private-networks", "--db", db]);
    feeds.setRoute(path, { body: STAYS, etag: '"v3"' });
    const repaired = await runBin(["sync", "--local", "--allow-private-networks", "--json", "--db", db]);
    const { result } = JSON.parse(repaired.stdout).results[0];
    expect(result).toEqual({
      status: "success",
      reservationsFound: 3,
      reservationsCreated: 0,
      reservationsUpdated: 0,
      reservationsCancelled: 0,
    });
    expect(await reservationsJson(db)).toBe(before);
  });
});
