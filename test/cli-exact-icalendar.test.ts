// Issue 24 end to end, through the built CLI (`calsync sync --local`, a child process) and through
// `calsync serve` (a real server process, synced over HTTP): the four feeds give the nights it
// states, on a machine whose own zone is none of the feeds'.
import { describe, expect, it } from "vitest";
import { runBin, runCli, type CliResult } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { postSync, startServe } from "./helpers/processes.js";

const { tmp, feeds } = useCliFixtures({ built: true });
let count = 0;


// A year always ahead, so the stays stay upcoming (the issue wrote 2027).
const Y = new Date().getUTCFullYear() + 1;
const ENV = { TZ: "Asia/Tokyo", CALSYNC_ALLOW_PRIVATE_NETWORKS: "1" };
const vcalendar = (header: string[], ...events: string[][]) =>
  ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calsync//issue 24//EN", ...header,
   ...events.flatMap((lines) => ["BEGIN:VEVENT", "DTSTAMP:20260101T000000Z", ...lines, "END:VEVENT"]), "END:VCALENDAR", ""].join("\r\n");

/** The last Sunday of October of `year`: the night Berlin's clocks go back from 03:00 to 02:00. */
function fallBackDay(year: number): string {
  const last = new Date(Date.UTC(year, 9, 31));
  last.setUTCDate(31 - last.getUTCDay());
  return last.toISOString().slice(0, 10);
}
const shift = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const compact = (date: string) => date.replaceAll("-", "");

interface Case {
  name: string;
  source: string;
  zone: string | null;
  body: string;
  /** [uid, arrival, departure] of every stored reservation. */
  nights: Array<[string, string, string]>;
  /** Extra checks of stored instants: uid → start. */
  starts?: Record<string, string>;
}

const fold = fallBackDay(Y);
const CASES: Case[] = [
  {
    name: "a yearly series with an RDATE takes the RDATE's night too",
    source: "other",
    zone: null,
    body: vcalendar([], [
      "UID:yearly@example.com", `DTSTART;VALUE=DATE:${Y - 1}1220`, `DTEND;VALUE=DATE:${Y - 1}1221`,
      "RRULE:FREQ=YEARLY;COUNT=2", `RDATE;VALUE=DATE:${Y}0615`, "SUMMARY:Owner stay",
    ]),
    nights: [
      [`yearly@example.com#${Y - 1}-12-20`, `${Y - 1}-12-20`, `${Y - 1}-12-21`],
      [`yearly@example.com#${Y}-06-15`, `${Y}-06-15`, `${Y}-06-16`],
      [`yearly@example.com#${Y}-12-20`, `${Y}-12-20`, `${Y}-12-21`],
    ],
  },
  {
    name: "a VTIMEZONE named \"Custom Fixed -0330\" is read with its own definition",
    source: "other",
    zone: "America/St_Johns",
    body: vcalendar(
      ["BEGIN:VTIMEZONE", "TZID:Custom Fixed -0330", "BEGIN:STANDARD", "DTSTART:16010101T000000", "TZOFFSETFROM:-0330", "TZOFFSETTO:-0330", "END:STANDARD", "END:VTIMEZONE"],
      ["UID:outlook@example.com", `DTSTART;TZID="Custom Fixed -0330":${Y}0424T210000`, `DTEND;TZID="Custom Fixed -0330":${Y}0427T010000`, "SUMMARY:Reserved"],
    ),
    // 01:00 at -03:30 is 02:00 in St John's (NDT, -02:30) on the 27th; read as UTC it would be 22:30 on the 26th.
    nights: [["outlook@example.com", `${Y}-04-24`, `${Y}-04-27`]],
    starts: { "outlook@example.com": `${Y}-04-25T00:30:00.000Z` },
  },
  {
    name: "the hour Berlin's clocks go back is its first occurrence",
    source: "other",
    zone: "Atlantic/Cape_Verde",
    body: vcalendar([], [
      "UID:fold@example.com", `DTSTART;TZID=Europe/Berlin:${compact(fold)}T023000`, `DTEND;TZID=Europe/Berlin:${compact(shift(fold, 2))}T100000`, "SUMMARY:Reserved",
    ]),
    // The first 02:30 is 00:30Z: 23:30 the evening before in Cape Verde (UTC-1).
    nights: [["fold@example.com", shift(fold, -1), shift(fold, 2)]],
    starts: { "fold@example.com": `${fold}T00:30:00.000Z` },
  },
  {
    name: "a cleaning and a check-out marker take no night",
    source: "google",
    zone: "Europe/Lisbon",
    body: vcalendar(["X-WR-TIMEZONE:Europe/Lisbon"], [
      "UID:stay@google.com", `DTSTART;VALUE=DATE:${Y}0710`, `DTEND;VALUE=DATE:${Y}0714`, "SUMMARY:Guest stay",
    ], [
      "UID:cleaning@google.com", `DTSTART;TZID=Europe/Lisbon:${Y}0714T110000`, `DTEND;TZID=Europe/Lisbon:${Y}0714T130000`, "SUMMARY:Cleaning",
    ], [
      "UID:checkout@google.com", `DTSTART:${Y}0714T090000Z`, `DTEND:${Y}0714T093000Z`, "SUMMARY:Check-out",
    ], [
      "UID:midnight@google.com", `DTSTART;TZID=Europe/Lisbon:${Y}0724T000000`, `DTEND;TZID=Europe/Lisbon:${Y}0725T000000`, "SUMMARY:Owner night",
    ]),
    // 00:00 on the 24th to 00:00 on the 25th is the night of the 24th.
    nights: [["midnight@google.com", `${Y}-07-24`, `${Y}-07-25`], ["stay@google.com", `${Y}-07-10`, `${Y}-07-14`]],
  },
];

function cli(db: string, ...argv: string[]): Promise<CliResult> {
  return runBin([...argv, "--db", db], ENV);
}
async function json(db: string, ...argv: string[]) {
  const result = await cli(db, ...argv, "--json");
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}
/** The same CLI in this process, for the set-up and listings, which do not read feeds. */
async function quick(db: string, ...argv: string[]) {
  const result = await runCli([...argv, "--db", db, "--json"], { env: ENV });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

/** A database with one owner, one property (zone `zone`) and one calendar per case. */
async function setup(cases: Case[]) {
  const db = tmp.db();
  await quick(db, "owner", "add", "Ann");
  for (const c of cases) {
    const property = await quick(db, "property", "add", c.name.slice(0, 40), ...(c.zone ? ["--timezone", c.zone] : []));
    await quick(db, "calendar", "add", "--property", property.id, "--source", c.source, "--url", feeds.url(`/exact/${++count}.ics`, { body: c.body }));
  }
  return db;
}

type Listed = { uid: string; status: string; start: string; arrival: string; departure: string };

function expectNights(listed: Listed[], cases: Case[]) {
  const active = listed.filter((r) => r.status === "active");
  const expected = cases.flatMap((c) => c.nights).sort();
  expect(active.map((r) => [r.uid, r.arrival, r.departure]).sort()).toEqual(expected);
  for (const c of cases) for (const [uid, start] of Object.entries(c.starts ?? {})) expect(active.find((r) => r.uid === uid)?.start).toBe(start);
}

describe("the issue's four feeds", () => {
  it("give the stated nights through `calsync sync --local`", async () => {
    const db = await setup(CASES);
    const synced = await json(db, "sync", "--local");
    expect(synced.ok).toBe(true);
    const found = synced.results.map((r: { result: { reservationsFound: number } }) => r.result.reservationsFound).sort();
    expect(found).toEqual(CASES.map((c) => c.nights.length).sort());
    expectNights(await quick(db, "reservations"), CASES);
  }, 60_000);

  it("give the stated nights through `calsync serve` (POST /api/v1/calendars/sync)", async () => {
    const db = await setup(CASES);
    const { token } = await quick(db, "token", "create", "--name", "issue-24");
    const server = await startServe(["--db", db], ENV);
    try {
      const res = await postSync(server.url, token as string);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { results: Array<{ result: { reservationsFound: number } }> };
      expect(body.results.map((r) => r.result.reservationsFound).sort()).toEqual(CASES.map((c) => c.nights.length).sort());
    } finally {
      await server.stop();
      expect(await server.exited).toBe(0);
    }
    expectNights(await quick(db, "reservations"), CASES);
  }, 60_000);
});
