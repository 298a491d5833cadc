// What `calsync reservation …` says on this machine's database, as a newcomer reads it (issue 36): the property by
// its name and the channel by its own, ids after them; one warning per calendar the check could not refresh; a
// cancelled stay that cannot be changed is no usage error; and with two owners an id names its owner (CONTRACT §6).
// The built CLI as a child process, a real SQLite file, channel feeds on a loopback server.
import { describe, expect, it } from "vitest";
import { runBin, runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day } from "./helpers/ics.js";

// Each case starts several CLI processes (a second or more each on a loaded machine): a budget beyond the default.
const CHILDREN = { timeout: 120_000 };

const { tmp, feeds } = useCliFixtures({ built: true });

let count = 0;
/** Owner Ann with "Sea View Loft" and its Airbnb and Booking.com calendars on the loopback feed server (not synced). */
async function setup() {
  const db = tmp.db();
  expect((await runCli(["owner", "add", "Ann", "--db", db])).code).toBe(0);
  const property = JSON.parse((await runCli(["property", "add", "Sea View Loft", "--json", "--db", db])).stdout) as { id: string };
  const calendars: Record<string, string> = {};
  for (const source of ["airbnb", "booking"]) {
    const url = feeds.url(`/${source}-${++count}.ics`, { body: buildIcs([{ uid: `${source}-1`, start: day(10), end: day(13), summary: "Reserved" }]) });
    const added = JSON.parse((await runCli(["calendar", "add", "--property", property.id, "--url", url, "--source", source, "--json", "--db", db])).stdout);
    calendars[source] = added.id as string;
  }
  return { db, propertyId: property.id, calendars };
}

describe("calsync reservation's messages name what a person knows", CHILDREN, () => {
  it("names the property, the kind and the nights, with the stay's id after them", async () => {
    const { db, propertyId } = await setup();
    const added = await runBin(["reservation", "add", "--property", propertyId, "--arrival", day(60), "--departure", day(63), "--summary", "Ana (phone)", "--no-refresh", "--db", db]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(new RegExp(`^Added a booking at "Sea View Loft": ${day(60)} → ${day(63)} \\(3 nights\\), "Ana \\(phone\\)" \\(rsv_\\w+\\)\\n$`));
    expect(added.stdout).not.toContain(propertyId);
    const id = /\((rsv_\w+)\)\n$/.exec(added.stdout)![1]!;

    const moved = await runBin(["reservation", "update", id, "--departure", day(64), "--db", db, "--allow-private-networks"]);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toBe(`Updated the booking at "Sea View Loft": ${day(60)} → ${day(64)} (4 nights), "Ana (phone)" (${id})\n`);

    const block = await runBin(["reservation", "add", "--property", propertyId, "--arrival", day(70), "--departure", day(71), "--block", "--no-refresh", "--db", db]);
    expect(block.stdout).toMatch(new RegExp(`^Added a block at "Sea View Loft": ${day(70)} → ${day(71)} \\(1 night\\), "Blocked" \\(rsv_\\w+\\)\\n$`));

    const cancelled = await runBin(["reservation", "cancel", id, "--db", db]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toBe(`Cancelled the booking at "Sea View Loft": ${day(60)} → ${day(64)} (4 nights), "Ana (phone)" (${id})\n`);
  });

  it("warns once per calendar it could not refresh, by the channel's name, that it was checked as last stored", async () => {
    const { db, propertyId, calendars } = await setup();
    // Without --allow-private-networks the loopback feeds are refused, as in `sync --local`: neither is refreshed.
    const added = await runBin(["reservation", "add", "--property", propertyId, "--arrival", day(40), "--departure", day(42), "--db", db]);
    expect(added.code, added.stderr).toBe(0);
    const warnings = added.stderr.trim().split("\n");
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(new RegExp(`^\\[warn\\] Airbnb \\(${calendars.airbnb}\\) could not be refreshed just now: .+; checked as last stored$`));
    expect(warnings[1]).toMatch(new RegExp(`^\\[warn\\] Booking\\.com \\(${calendars.booking}\\) could not be refreshed just now: .+; checked as last stored$`));
    for (const warning of warnings) {
      expect(warning.match(/checked as last/g)).toHaveLength(1);
      expect(warning).not.toContain("last synced");
    }

    // --json keeps the warnings on stderr, worded the same, and the server's answer on stdout.
    const json = await runBin(["reservation", "add", "--property", propertyId, "--arrival", day(50), "--departure", day(52), "--json", "--db", db]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).warnings).toHaveLength(2);
    expect(json.stderr).toMatch(/^\[warn\] Airbnb \(cal_\w+\) could not be refreshed just now: /m);
  });

  it("exits 1 with a clear message, and no usage hint, for a change to a cancelled stay", async () => {
    const { db, propertyId } = await setup();
    const stay = JSON.parse((await runBin(["reservation", "add", "--property", propertyId, "--arrival", day(60), "--departure", day(62), "--no-refresh", "--json", "--db", db])).stdout);
    expect((await runBin(["reservation", "cancel", stay.id, "--db", db])).code).toBe(0);
    const update = await runBin(["reservation", "update", stay.id, "--note", "late arrival", "--db", db]);
    expect(update.code).toBe(1);
    expect(update.stderr).toBe("error: the stay is cancelled: create a new one instead (calsync reservation add)\n");
    expect(update.stderr).not.toContain("--help");
  });
});

describe("with two owners, an id names its owner: no --owner needed", CHILDREN, () => {
  it("adds, moves, cancels and shows the availability of Ann's property with Bob in the database", async () => {
    const { db, propertyId } = await setup();
    expect((await runCli(["owner", "add", "Bob", "--db", db])).code).toBe(0);
    // Bob's own property, so the database is not one owner's in any respect.
    expect((await runCli(["property", "add", "Harbour House", "--owner", "Bob", "--db", db])).code).toBe(0);

    const added = await runBin(["reservation", "add", "--property", propertyId, "--arrival", day(60), "--departure", day(62), "--no-refresh", "--json", "--local", "--db", db]);
    expect(added.code, added.stderr).toBe(0);
    const stay = JSON.parse(added.stdout);
    expect(stay).toMatchObject({ propertyId, arrival: day(60), departure: day(62) });

    const moved = await runBin(["reservation", "update", stay.id, "--summary", "Ana", "--db", db, "--allow-private-networks"]);
    expect(moved.code, moved.stderr).toBe(0);
    const availability = await runBin(["availability", "--property", propertyId, "--from", day(59), "--to", day(63), "--json", "--db", db]);
    expect(availability.code, availability.stderr).toBe(0);
    expect(JSON.parse(availability.stdout).nights.map((n: { available: boolean }) => n.available)).toEqual([true, false, false, true]);
    const cancelled = await runBin(["reservation", "cancel", stay.id, "--db", db]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain(`Cancelled the booking at "Sea View Loft"`);
  });

  it("refuses an id of another owner than --owner names, and an unknown id, as not found (exit 1, not usage)", async () => {
    const { db, propertyId } = await setup();
    expect((await runCli(["owner", "add", "Bob", "--db", db])).code).toBe(0);
    const other = await runBin(["reservation", "add", "--property", propertyId, "--arrival", day(60), "--departure", day(62), "--no-refresh", "--owner", "Bob", "--db", db]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/^error: not found: no such property/);
    const unknown = await runBin(["availability", "--property", "prp_nobody", "--db", db]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('error: not found: no such property "prp_nobody"\n');
    const missing = await runBin(["reservation", "cancel", "rsv_nobody", "--db", db]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('error: not found: no such reservation "rsv_nobody"\n');
  });
});
