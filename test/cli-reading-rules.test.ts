// Issue 35 "Reading iCalendar" end to end, through the built CLI (`calsync sync --local`, a child process)
// and through `calsync serve` (a real server process, synced over HTTP), on loopback feeds: UNTIL in UTC,
// DURATION across a clock change, lower-case names and values, folds inside names, an unreadable RRULE,
// and a feed's own VTIMEZONE under an IANA name. The machine's zone is none of the feeds'.
import { describe, expect, it } from "vitest";
import { runBin, runCli, type CliResult } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { postSync, startServe } from "./helpers/processes.js";

const { tmp, feeds } = useCliFixtures({ built: true });
let count = 0;

// A year always ahead, so the stays stay upcoming.
const Y = new Date().getUTCFullYear() + 1;
const ENV = { TZ: "Asia/Tokyo", CALSYNC_ALLOW_PRIVATE_NETWORKS: "1" };
const vcalendar = (header: string[], ...events: string[][]) =>
  ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calsync//issue 35//EN", ...header,
   ...events.flatMap((lines) => ["BEGIN:VEVENT", "DTSTAMP:20260101T000000Z", ...lines, "END:VEVENT"]), "END:VCALENDAR", ""].join("\r\n");
const shift = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const compact = (date: string) => date.replaceAll("-", "");

/** The Saturday before Santiago's clocks go from 00:00 to 01:00 (the first Sunday on or after 2 September). */
function santiagoSpringSaturday(year: number): string {
  const sunday = new Date(Date.UTC(year, 8, 2));
  sunday.setUTCDate(2 + ((7 - sunday.getUTCDay()) % 7));
  return shift(sunday.toISOString().slice(0, 10), -1);
}
const saturday = santiagoSpringSaturday(Y);
const jan4 = `${Y}-01-04`;

interface Case {
  name: string;
  zone: string | null;
  body: string;
  /** [uid, arrival, departure] of every stored reservation. */
  nights: Array<[string, string, string]>;
  /** The calendar's unreadable_event warnings, by UID. */
  unreadable?: string[];
}

const CASES: Case[] = [
  {
    name: "a Sydney series ended by Google's UNTIL keeps its last stay",
    zone: "Australia/Sydney",
    body: vcalendar([], [
      "UID:syd@google.com", `DTSTART;TZID=Australia/Sydney:${compact(jan4)}T150000`, `DTEND;TZID=Australia/Sydney:${compact(shift(jan4, 2))}T100000`,
      // 12:59:59Z is 23:59:59 in Sydney (summer time, +11) on the series' fourth day.
      `RRULE:FREQ=WEEKLY;UNTIL=${compact(shift(jan4, 21))}T125959Z`, "SUMMARY:Reserved",
    ]),
    nights: [0, 7, 14, 21].map((d) => [`syd@google.com#${shift(jan4, d)}T04:00:00.000Z`, shift(jan4, d), shift(jan4, d + 2)]),
  },
  {
    name: "a New York series takes no stay after its UNTIL",
    zone: "America/New_York",
    body: vcalendar([], [
      "UID:ny@google.com", `DTSTART;TZID=America/New_York:${compact(jan4)}T200000`, `DTEND;TZID=America/New_York:${compact(shift(jan4, 2))}T100000`,
      // 23:00Z on the third day is 18:00 in New York, before that evening's 20:00.
      `RRULE:FREQ=WEEKLY;UNTIL=${compact(shift(jan4, 14))}T230000Z`, "SUMMARY:Reserved",
    ]),
    nights: [0, 7].map((d) => [`ny@google.com#${shift(jan4, d + 1)}T01:00:00.000Z`, shift(jan4, d), shift(jan4, d + 2)]),
  },
  {
    name: "PT24H across Santiago's spring change keeps its second night",
    zone: "America/Santiago",
    body: vcalendar([], [
      "UID:cl@example.com", `DTSTART;TZID=America/Santiago:${compact(saturday)}T233000`, "DURATION:PT24H", "SUMMARY:Reserved",
    ], [
      "UID:cl-day@example.com", `DTSTART;TZID=America/Santiago:${compact(shift(saturday, -7))}T233000`, "DURATION:P1D", "SUMMARY:Reserved",
    ]),
    // 24 hours after 23:30 (-04) is 00:30 (-03) two days on; P1D ends at 23:30 the next day.
    nights: [["cl@example.com", saturday, shift(saturday, 2)], ["cl-day@example.com", shift(saturday, -7), shift(saturday, -6)]],
  },
  {
    name: "lower-case names and values, folds inside names, an unreadable rule",
    zone: null,
    body: vcalendar([], [
      "uid:lower@example.com", `dtstart;value=date:${Y}0310`, `Dtend;Value=Date:${Y}0312`, "summary:Reserved",
    ], [
      "UID:weekly@example.com", `DTSTART;VALUE=DATE:${Y}0401`, `DTEND;VALUE=DATE:${Y}0402`, "RRULE:freq=weekly;count=2", "SUMMARY:Owner",
    ], [
      "UID:folded@example.com", "DTST", ` ART;VALUE=DATE:${Y}0501`, "DTEND;VAL", `\tUE=DATE:${Y}0503`, "SUMMARY:Reserved",
    ], [
      "UID:bad-rule@example.com", `DTSTART;VALUE=DATE:${Y}0601`, `DTEND;VALUE=DATE:${Y}0602`, "RRULE:FREQ=SOMETIMES", "SUMMARY:Reserved",
    ]).replace("BEGIN:VCALENDAR", "BEGIN:VCAL\r\n ENDAR").replace(/END:VCALENDAR\r\n$/, "END:VCALEN\r\n DAR\r\n"),
    nights: [
      ["lower@example.com", `${Y}-03-10`, `${Y}-03-12`],
      [`weekly@example.com#${Y}-04-01`, `${Y}-04-01`, `${Y}-04-02`],
      [`weekly@example.com#${Y}-04-08`, `${Y}-04-08`, `${Y}-04-09`],
      ["folded@example.com", `${Y}-05-01`, `${Y}-05-03`],
    ],
    unreadable: ["bad-rule@example.com"],
  },
  {
    name: "a feed's stale São Paulo VTIMEZONE decides the nights",
    zone: null,
    body: vcalendar([
      "BEGIN:VTIMEZONE", "TZID:America/Sao_Paulo",
      "BEGIN:STANDARD", "DTSTART:19700215T000000", "TZOFFSETFROM:-0200", "TZOFFSETTO:-0300", "RRULE:FREQ=YEARLY;BYMONTH=2;BYDAY=3SU", "END:STANDARD",
      "BEGIN:DAYLIGHT", "DTSTART:19701101T000000", "TZOFFSETFROM:-0300", "TZOFFSETTO:-0200", "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU", "END:DAYLIGHT",
      "END:VTIMEZONE",
    ], [
      // 00:30 at the feed's -02 is 23:30 the evening before by IANA's -03.
      "UID:sp@example.com", `DTSTART;TZID=America/Sao_Paulo:${Y}0111T003000`, `DTEND;TZID=America/Sao_Paulo:${Y}0113T003000`, "SUMMARY:Reserved",
    ]),
    nights: [["sp@example.com", `${Y}-01-11`, `${Y}-01-13`]],
  },
];

function cli(db: string, ...argv: string[]): Promise<CliResult> {
  return runBin([...argv, "--db", db], ENV);
}
/** The same CLI in this process, for the set-up and listings, which do not read feeds. */
async function quick(db: string, ...argv: string[]) {
  const result = await runCli([...argv, "--db", db, "--json"], { env: ENV });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

/** A database with one owner, one property (zone `zone`) and one calendar per case. */
async function setup() {
  const db = tmp.db();
  await quick(db, "owner", "add", "Ann");
  for (const c of CASES) {
    const property = await quick(db, "property", "add", c.name.slice(0, 40), ...(c.zone ? ["--timezone", c.zone] : []));
    await quick(db, "calendar", "add", "--property", property.id, "--source", "other", "--url", feeds.url(`/reading/${++count}.ics`, { body: c.body }));
  }
  return db;
}

interface Result {
  status: string;
  reservationsFound: number;
  warnings?: Array<{ code: string; uid: string }>;
}

function expectResults(results: Result[]) {
  expect(results.map((r) => r.status)).toEqual(CASES.map(() => "success"));
  expect(results.map((r) => r.reservationsFound).sort()).toEqual(CASES.map((c) => c.nights.length).sort());
  const unreadable = results.flatMap((r) => r.warnings ?? []).map((w) => [w.code, w.uid]);
  expect(unreadable).toEqual(CASES.flatMap((c) => c.unreadable ?? []).map((uid) => ["unreadable_event", uid]));
}

async function expectNights(db: string) {
  const listed = (await quick(db, "reservations")) as Array<{ uid: string; status: string; arrival: string; departure: string }>;
  const active = listed.filter((r) => r.status === "active");
  expect(active.map((r) => [r.uid, r.arrival, r.departure]).sort()).toEqual(CASES.flatMap((c) => c.nights).sort());
}

describe("issue 35's feeds", () => {
  it("give the RFC's nights through `calsync sync --local`", async () => {
    const db = await setup();
    const synced = await cli(db, "sync", "--local", "--json");
    expect(synced.code, synced.stderr).toBe(0);
    expectResults(JSON.parse(synced.stdout).results.map((r: { result: Result }) => r.result));
    await expectNights(db);
  }, 60_000);

  it("give the RFC's nights through `calsync serve` (POST /api/v1/calendars/sync)", async () => {
    const db = await setup();
    const { token } = await quick(db, "token", "create", "--name", "issue-35");
    const server = await startServe(["--db", db], ENV);
    try {
      const res = await postSync(server.url, token as string);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { results: Array<{ result: Result }> };
      expectResults(body.results.map((r) => r.result));
    } finally {
      await server.stop();
      expect(await server.exited).toBe(0);
    }
    await expectNights(db);
  }, 60_000);
});
