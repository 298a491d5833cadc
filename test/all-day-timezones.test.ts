// All-day dates must come out exactly as written whatever the machine's time zone. The zone of a
// running process cannot be changed reliably, so each zone gets its own child process running the
// built parser. Pacific/Kiritimati (UTC+14) and Pacific/Pago_Pago (UTC−11) are 25 hours apart.
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const built = `${root}dist/engine/parse-feed.js`;
const sources = ["parse-feed", "channels", "recurrence", "local-date", "wall-time", "model"].map((name) => `${root}src/engine/${name}.ts`);

const FEED = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//Airbnb Inc//Hosting Calendar 0.8.8//EN",
  "BEGIN:VEVENT",
  "UID:new-year@airbnb.com",
  "DTSTART;VALUE=DATE:20311231",
  "DTEND;VALUE=DATE:20320102",
  "SUMMARY:Reserved",
  "END:VEVENT",
  "BEGIN:VEVENT",
  "UID:one-night@airbnb.com",
  "DTSTART;VALUE=DATE:20310301",
  "SUMMARY:Airbnb (Not available)",
  "END:VEVENT",
  "BEGIN:VEVENT",
  // the night the clocks change in Europe and the US
  "UID:dst@airbnb.com",
  "DTSTART;VALUE=DATE:20310329",
  "DTEND;VALUE=DATE:20310331",
  "SUMMARY:Reserved",
  "END:VEVENT",
  "BEGIN:VEVENT",
  "UID:weekly@airbnb.com",
  "DTSTART;VALUE=DATE:20310104",
  "DTEND;VALUE=DATE:20310105",
  "RRULE:FREQ=WEEKLY;COUNT=3",
  "SUMMARY:Airbnb (Not available)",
  "END:VEVENT",
  "BEGIN:VEVENT",
  "UID:paris@airbnb.com",
  "DTSTART;TZID=Europe/Paris:20310715T150000",
  "DTEND;TZID=Europe/Paris:20310720T110000",
  "SUMMARY:Reserved",
  "END:VEVENT",
  "END:VCALENDAR",
].join("\r\n");

const EXPECTED = [
  ["new-year@airbnb.com", "2031-12-31", "2032-01-02"],
  ["one-night@airbnb.com", "2031-03-01", "2031-03-02"],
  ["dst@airbnb.com", "2031-03-29", "2031-03-31"],
  ["weekly@airbnb.com#2031-01-04", "2031-01-04", "2031-01-05"],
  ["weekly@airbnb.com#2031-01-11", "2031-01-11", "2031-01-12"],
  ["weekly@airbnb.com#2031-01-18", "2031-01-18", "2031-01-19"],
  // 15:00 and 11:00 in Paris in July (UTC+2)
  ["paris@airbnb.com", "2031-07-15T13:00:00.000Z", "2031-07-20T09:00:00.000Z"],
];

/** Timed events node-ical would read in the machine's zone: floating times and an unknown TZID. */
const floating = (...header: string[]) =>
  [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Hand made//EN",
    ...header,
    "BEGIN:VEVENT",
    "UID:floating",
    "DTSTART:20310715T150000",
    "DTEND:20310720T110000",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "UID:mars",
    "DTSTART;TZID=Mars/Olympus_Mons:20310101T100000",
    "DTEND;TZID=Mars/Olympus_Mons:20310101T120000",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "UID:daily",
    "DTSTART:20310301T090000",
    "DURATION:PT1H",
    "RRULE:FREQ=DAILY;COUNT=2",
    "END:VEVENT",
    "END:VCALENDAR",
  ].join("\r\n");

/** Parses `feed` in a child process whose TZ is `zone`; returns [uid, start, end] per event. */
function parseIn(zone: string, feed = FEED): string[][] {
  const script = `
    const { parseFeed } = await import(${JSON.stringify(built)});
    const result = parseFeed(${JSON.stringify(feed)}, { source: "airbnb", now: new Date(2031, 0, 1) });
    if (!result.ok) throw new Error(result.error.message);
    process.stdout.write(JSON.stringify({
      offset: new Date(2031, 0, 1).getTimezoneOffset(),
      events: result.events.map((e) => [e.uid, e.start, e.end]),
    }));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, TZ: zone },
    encoding: "utf8",
  });
  const parsed = JSON.parse(out) as { offset: number; events: string[][] };
  // Prove the child really ran in that zone (Kiritimati −840 minutes, Pago Pago +660).
  expect(parsed.offset).toBe(zone === "Pacific/Kiritimati" ? -840 : zone === "Pacific/Pago_Pago" ? 660 : parsed.offset);
  return parsed.events;
}

beforeAll(() => {
  const newest = Math.max(...sources.map((file) => statSync(file).mtimeMs));
  if (!existsSync(built) || statSync(built).mtimeMs < newest) {
    try {
      execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, "-p", `${root}tsconfig.build.json`], { stdio: "ignore" });
    } catch {
      // tsc still emits when another part of the tree has type errors; the check below decides.
    }
  }
  if (!existsSync(built) || statSync(built).mtimeMs < newest) throw new Error(`could not build ${built}`);
}, 120_000);

describe("all-day dates in any time zone", () => {
  it.each(["Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC"])("are read as written under TZ=%s", (zone) => {
    expect(parseIn(zone)).toEqual(EXPECTED);
  });

  it("are identical in zones 25 hours apart", () => {
    expect(parseIn("Pacific/Kiritimati")).toEqual(parseIn("Pacific/Pago_Pago"));
  });
});

describe("timed events without a usable zone", () => {
  it.each(["Pacific/Kiritimati", "Pacific/Pago_Pago"])("are read as UTC wall times under TZ=%s", (zone) => {
    expect(parseIn(zone, floating())).toEqual([
      ["floating", "2031-07-15T15:00:00.000Z", "2031-07-20T11:00:00.000Z"],
      ["mars", "2031-01-01T10:00:00.000Z", "2031-01-01T12:00:00.000Z"],
      ["daily#2031-03-01T09:00:00.000Z", "2031-03-01T09:00:00.000Z", "2031-03-01T10:00:00.000Z"],
      ["daily#2031-03-02T09:00:00.000Z", "2031-03-02T09:00:00.000Z", "2031-03-02T10:00:00.000Z"],
    ]);
  });

  it.each(["Pacific/Kiritimati", "Pacific/Pago_Pago"])("are read in the calendar's X-WR-TIMEZONE under TZ=%s", (zone) => {
    // Paris is UTC+2 in July and UTC+1 in January and March.
    expect(parseIn(zone, floating("X-WR-TIMEZONE:Europe/Paris"))).toEqual([
      ["floating", "2031-07-15T13:00:00.000Z", "2031-07-20T09:00:00.000Z"],
      ["mars", "2031-01-01T09:00:00.000Z", "2031-01-01T11:00:00.000Z"],
      ["daily#2031-03-01T08:00:00.000Z", "2031-03-01T08:00:00.000Z", "2031-03-01T09:00:00.000Z"],
      ["daily#2031-03-02T08:00:00.000Z", "2031-03-02T08:00:00.000Z", "2031-03-02T09:00:00.000Z"],
    ]);
  });
});
