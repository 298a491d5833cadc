// Issue 12 end to end through the built CLI (a child process) and `calsync serve`: a Vrbo-style stay
// written in Los Angeles time is exported, compared and listed as the nights it really takes, on a
// machine whose own zone is half a world away; changing the property's zone moves the nights.
import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { runBin, runCli, type CliResult } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { startServe } from "./helpers/processes.js";

const { tmp, feeds } = useCliFixtures({ built: true });
const children: ChildProcess[] = [];
let count = 0;

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

// The dates, in a year that is always ahead so the stays stay upcoming.
const Y = new Date().getUTCFullYear() + 1;
const vcalendar = (header: string[], ...events: string[][]) =>
  ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//HomeAway//Vrbo//EN", ...header,
   ...events.flatMap((lines) => ["BEGIN:VEVENT", "DTSTAMP:20260101T000000Z", ...lines, "END:VEVENT"]), "END:VCALENDAR", ""].join("\r\n");
/** The Vrbo stay: 16:00 on 10 Dec → 10:00 on 13 Dec, Los Angeles time. */
const LA_STAY = [`UID:la-stay@vrbo.com`, `DTSTART;TZID=America/Los_Angeles:${Y}1210T160000`, `DTEND;TZID=America/Los_Angeles:${Y}1213T100000`, "SUMMARY:Reserved - Ann"];
/** The Auckland stay: 15:00 on 20 Dec → 10:00 on 22 Dec. */
const AUCKLAND_STAY = [`UID:akl-stay@vrbo.com`, `DTSTART;TZID=Pacific/Auckland:${Y}1220T150000`, `DTEND;TZID=Pacific/Auckland:${Y}1222T100000`, "SUMMARY:Reserved - Bo"];

/** The built CLI with a machine zone far from the property's (and UTC), so a shortcut through either would show. */
function cli(db: string, ...argv: string[]): Promise<CliResult> {
  return runBin([...argv, "--db", db], { TZ: "Asia/Tokyo", CALSYNC_ALLOW_PRIVATE_NETWORKS: "1" });
}
async function json(db: string, ...argv: string[]) {
  const result = await cli(db, ...argv, "--json");
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}
/** The same CLI in this process, for what does not depend on the machine's zone (flags, listings). */
const quick = (db: string, ...argv: string[]) => runCli([...argv, "--db", db]);
async function quickJson(db: string, ...argv: string[]) {
  const result = await quick(db, ...argv, "--json");
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

/** Owner, a property (with `zone` if given) and one calendar per feed. */
async function setup(zone: string | null, calendars: Array<{ source: string; body: string }>) {
  const db = tmp.db();
  await json(db, "owner", "add", "Ann");
  const property = await json(db, "property", "add", "Beach House", ...(zone ? ["--timezone", zone] : []));
  for (const { source, body } of calendars) {
    await json(db, "calendar", "add", "--property", property.id, "--source", source, "--url", feeds.url(`/tz/${++count}/${source}.ics`, { body }));
  }
  return { db, propertyId: property.id as string };
}

/** The [DTSTART, DTEND] dates of every event of an exported feed. */
const exportedNights = (ics: string) =>
  [...ics.matchAll(/DTSTART;VALUE=DATE:(\d{8})\r\nDTEND;VALUE=DATE:(\d{8})/g)].map((m) => [m[1], m[2]]).sort();

describe("a Los Angeles stay on a machine in Tokyo", () => {
  it("exports the nights of 10, 11 and 12 December: DTSTART 1210, DTEND 1213", async () => {
    const { db, propertyId } = await setup("America/Los_Angeles", [{ source: "vrbo", body: vcalendar([], LA_STAY) }]);
    const synced = await cli(db, "sync", "--local", "--json");
    expect(synced.code, synced.stderr).toBe(0);
    const exported = await cli(db, "export", "--property", propertyId);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exportedNights(exported.stdout)).toEqual([[`${Y}1210`, `${Y}1213`]]);

    const [row] = await json(db, "reservations", "--property", propertyId);
    expect(row).toMatchObject({
      uid: "la-stay@vrbo.com",
      start: `${Y}-12-11T00:00:00.000Z`,
      end: `${Y}-12-13T18:00:00.000Z`,
      arrival: `${Y}-12-10`,
      departure: `${Y}-12-13`,
    });
    const table = await cli(db, "reservations");
    expect(table.stdout).toMatch(/^PROPERTY\s+SOURCE\s+KIND\s+STATUS\s+ARRIVAL\s+DEPARTURE\s+SUMMARY\n/);
    expect(table.stdout).toMatch(new RegExp(`Beach House\\s+vrbo\\s+booking\\s+active\\s+${Y}-12-10\\s+${Y}-12-13\\s+Reserved - Ann`));
  });

  it("reads the stays in their own TZID when the property has no zone: Auckland's 20 December → 22 December too", async () => {
    const { db, propertyId } = await setup(null, [{ source: "vrbo", body: vcalendar([], LA_STAY, AUCKLAND_STAY) }]);
    expect((await cli(db, "sync", "--local")).code).toBe(0);
    const exported = await cli(db, "export", "--property", propertyId);
    expect(exportedNights(exported.stdout)).toEqual([[`${Y}1210`, `${Y}1213`], [`${Y}1220`, `${Y}1222`]]);
  });

  it("is a double booking with an all-day Airbnb booking of 12–14 December on another calendar", async () => {
    const airbnb = vcalendar([], ["UID:hm-1@airbnb.com", `DTSTART;VALUE=DATE:${Y}1212`, `DTEND;VALUE=DATE:${Y}1214`, "SUMMARY:Reserved"]);
    const { db, propertyId } = await setup("America/Los_Angeles", [
      { source: "airbnb", body: airbnb },
      { source: "vrbo", body: vcalendar([], LA_STAY) },
    ]);
    const synced = await cli(db, "sync", "--local", "--json");
    expect(synced.code, synced.stderr).toBe(0);
    const conflict = {
      propertyId,
      propertyName: "Beach House",
      from: `${Y}-12-12`,
      to: `${Y}-12-13`,
      reservations: [
        { id: expect.stringMatching(/^rsv_/), source: "vrbo", summary: "Reserved - Ann" },
        { id: expect.stringMatching(/^rsv_/), source: "airbnb", summary: "Reserved" },
      ],
    };
    expect(JSON.parse(synced.stdout).conflicts).toEqual([conflict]);
    expect(await json(db, "conflicts")).toEqual([conflict]);
  });

  it("moves the nights when the property's zone changes, and back when it is removed", async () => {
    // Written in UTC with no zone anywhere: 00:00 UTC on the 11th is 16:00 on the 10th in Los Angeles.
    const utc = vcalendar([], ["UID:utc-stay", `DTSTART:${Y}1211T000000Z`, `DTEND:${Y}1213T180000Z`, "SUMMARY:Reserved - Cy"]);
    const { db, propertyId } = await setup(null, [{ source: "vrbo", body: utc }]);
    expect((await cli(db, "sync", "--local")).code).toBe(0);
    const nights = async () => exportedNights((await cli(db, "export", "--property", propertyId)).stdout);
    expect(await nights()).toEqual([[`${Y}1211`, `${Y}1213`]]);

    const updated = await cli(db, "property", "update", propertyId, "--timezone", "america/los_angeles");
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toBe(`Updated property ${propertyId} "Beach House" (America/Los_Angeles).\n`);
    expect(updated.stderr).toMatch(/1 reservation's nights moved/);
    expect(await nights()).toEqual([[`${Y}1210`, `${Y}1213`]]);
    expect((await json(db, "reservations"))[0]).toMatchObject({ arrival: `${Y}-12-10`, departure: `${Y}-12-13` });
    // Syncing the same feed again changes nothing: the stored nights are the property's.
    const again = JSON.parse((await cli(db, "sync", "--local", "--json")).stdout);
    expect(again.results[0].result).toMatchObject({ reservationsCreated: 0, reservationsUpdated: 0, reservationsCancelled: 0 });

    expect(await json(db, "property", "update", propertyId, "--no-timezone")).toEqual({
      id: propertyId, ownerId: expect.any(String), name: "Beach House", timeZone: null,
      checkInTime: "15:00", checkOutTime: "11:00", bufferNights: 0, cleanerEmails: [],
    });
    expect(await nights()).toEqual([[`${Y}1211`, `${Y}1213`]]);
  });
});

describe("calsync property and time zones", () => {
  it("shows the zone in property list, as a column and as timeZone in --json", async () => {
    const db = tmp.db();
    await quickJson(db, "owner", "add", "Ann");
    const la = await quickJson(db, "property", "add", "Beach House", "--timezone", "America/Los_Angeles");
    const none = await quickJson(db, "property", "add", "Cabin");
    expect([la.timeZone, none.timeZone]).toEqual(["America/Los_Angeles", null]);
    expect(await quickJson(db, "property", "list")).toEqual([la, none]);
    const table = await quick(db, "property", "list");
    const [header, ...rows] = table.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^ID\s+NAME\s+TIME ZONE\s+OWNER\s+CALENDARS$/);
    expect(rows[0]).toMatch(/^prp_\w+\s+Beach House\s+America\/Los_Angeles\s+Ann\s+0$/);
    expect(rows[1]).toMatch(/^prp_\w+\s+Cabin\s+not set\s+Ann\s+0$/);
  });

  it("renames with --name and keeps the zone", async () => {
    const db = tmp.db();
    await quickJson(db, "owner", "add", "Ann");
    const property = await quickJson(db, "property", "add", "Beach House", "--timezone", "Europe/Lisbon");
    expect(await quickJson(db, "property", "update", property.id, "--name", "Casa da Praia")).toEqual({ ...property, name: "Casa da Praia" });
  });

  it.each([
    [["property", "add", "Loft", "--timezone", "Mars/Olympus_Mons"], /unknown time zone "Mars\/Olympus_Mons"/, "calsync property add"],
    [["property", "add", "Loft", "--timezone", "+02:00"], /unknown time zone "\+02:00"/, "calsync property add"],
    [["property", "update", "prp_x", "--timezone", "Europe/Lisbonne"], /unknown time zone "Europe\/Lisbonne"/, "calsync property update"],
    [["property", "update", "prp_x", "--timezone", ""], /the time zone is empty \(to remove a property's zone: --no-timezone\)/, "calsync property update"],
    [["property", "update", "prp_x"], /nothing to change: give --name, --timezone ZONE, --no-timezone, --check-in, --check-out, --buffer-nights or --cleaner-email/, "calsync property update"],
  ])("refuses %j as a usage error (exit 2, the reason and where the usage is)", async (argv, message, command) => {
    const db = tmp.db();
    await quickJson(db, "owner", "add", "Ann");
    const result = await quick(db, ...argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain(`(run '${command} --help' for usage)`);
    expect(await quickJson(db, "property", "list")).toEqual([]);
  });

  it("names an unknown property with exit 1", async () => {
    const db = tmp.db();
    await quickJson(db, "owner", "add", "Ann");
    const result = await quick(db, "property", "update", "prp_nope", "--timezone", "UTC");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no property "prp_nope"/);
  });
});

describe("calsync serve", () => {
  it("serves the Los Angeles stay at /ical/<token>.ics as 10 → 13 December", async () => {
    const { db, propertyId } = await setup(null, [{ source: "vrbo", body: vcalendar(["X-WR-TIMEZONE:Europe/London"], LA_STAY) }]);
    expect((await cli(db, "sync", "--local")).code).toBe(0);
    const { url } = await json(db, "property", "feed", propertyId);
    const server = await startServe(["--db", db], { TZ: "Pacific/Kiritimati" });
    children.push(server.child);
    const base = server.url;
    try {
      const res = await fetch(`${base}${new URL(url as string).pathname}`);
      expect(res.status).toBe(200);
      expect(exportedNights(await res.text())).toEqual([[`${Y}1210`, `${Y}1213`]]);
    } finally {
      await server.stop();
      expect(await server.exited).toBe(0);
    }
  });
});
