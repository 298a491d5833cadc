import { describe, expect, it } from "vitest";
import type { FeedEvent } from "../src/engine/model.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import { buildIcs, day } from "./helpers/ics.js";

const now = new Date();

/** Events of a feed that must parse; fails the test with the error otherwise. */
function events(text: string, options: { source?: "other" | "airbnb" | "google"; now?: Date } = {}): FeedEvent[] {
  const result = parseFeed(text, { source: options.source ?? "other", now: options.now ?? now });
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.events;
}
const calendar = (...lines: string[]) => ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...lines, "END:VCALENDAR"].join("\r\n");
const vevent = (...lines: string[]) => ["BEGIN:VEVENT", ...lines, "END:VEVENT"].join("\r\n");
const dates = (list: FeedEvent[]) => list.map((e) => [e.uid, e.start, e.end]);

describe("parseFeed: dates and identity", () => {
  it("keeps all-day dates as written and defaults a missing DTEND to one night", () => {
    const text = buildIcs([
      { uid: "a@x", start: "2031-03-10", end: "2031-03-14", summary: "Reserved" },
      { uid: "b@x", start: "2031-04-01", summary: "Blocked" },
    ]);
    expect(events(text).map((e) => [e.uid, e.start, e.end, e.kind])).toEqual([
      ["a@x", "2031-03-10", "2031-03-14", "booking"],
      ["b@x", "2031-04-01", "2031-04-02", "block"],
    ]);
  });

  it("reads relative dates written by the test helper", () => {
    expect(events(buildIcs([{ uid: "r", start: day(3), end: day(5) }]))[0]).toMatchObject({ start: day(3), end: day(5) });
  });

  it("gives timed events UTC instants, honouring TZID and DURATION", () => {
    const text = calendar(
      vevent("UID:paris", "DTSTART;TZID=Europe/Paris:20310115T150000", "DTEND;TZID=Europe/Paris:20310118T110000"),
      vevent("UID:utc", "DTSTART:20310201T100000Z", "DURATION:PT2H"),
      vevent("UID:point", "DTSTART:20310301T100000Z"),
    );
    expect(dates(events(text))).toEqual([
      ["paris", "2031-01-15T14:00:00.000Z", "2031-01-18T10:00:00.000Z"],
      ["utc", "2031-02-01T10:00:00.000Z", "2031-02-01T12:00:00.000Z"],
      ["point", "2031-03-01T10:00:00.000Z", "2031-03-01T10:00:00.000Z"],
    ]);
  });

  it("reads a date event whose DTEND is on or before DTSTART as one night", () => {
    const text = calendar(
      vevent("UID:inverted", "DTSTART;VALUE=DATE:20310310", "DTEND;VALUE=DATE:20310305"),
      vevent("UID:same", "DTSTART;VALUE=DATE:20310320", "DTEND;VALUE=DATE:20310320"),
      vevent("UID:timed", "DTSTART:20310401T100000Z", "DTEND:20310401T080000Z"),
    );
    expect(dates(events(text))).toEqual([
      ["inverted", "2031-03-10", "2031-03-11"],
      ["same", "2031-03-20", "2031-03-21"],
      ["timed", "2031-04-01T10:00:00.000Z", "2031-04-01T10:00:00.000Z"],
    ]);
  });

  it("marks STATUS:CANCELLED events cancelled", () => {
    const list = events(buildIcs([{ uid: "c", start: day(4), end: day(6), status: "CANCELLED" }, { uid: "k", start: day(4), status: "CONFIRMED" }]));
    expect(list.map((e) => e.cancelled)).toEqual([true, false]);
  });

  it("identifies events without UID by a stable hash of start, end and summary", () => {
    const feed = (summary: string) => buildIcs([{ start: "2031-05-01", end: "2031-05-03", summary }]);
    const [first] = events(feed("Blocked"));
    const [again] = events(feed("Blocked"));
    const [other] = events(feed("Owner stay"));
    expect(first?.uid).toMatch(/^nouid:[0-9a-f]{32}$/);
    expect(again?.uid).toBe(first?.uid);
    expect(other?.uid).not.toBe(first?.uid);
  });

  it("keeps one event per UID, the last one written", () => {
    const text = buildIcs([
      { uid: "dup", start: "2031-01-01", end: "2031-01-03", summary: "first", description: "only in the first" },
      { uid: "dup", start: "2031-02-01", end: "2031-02-03", summary: "second" },
    ]);
    const list = events(text);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ start: "2031-02-01", end: "2031-02-03", summary: "second", details: {} });
  });

  it("keeps the revision with the higher SEQUENCE of a UID written twice, in either order (RFC 5545)", () => {
    const revision = (sequence: number, month: string) =>
      vevent("UID:dup", `SEQUENCE:${sequence}`, `DTSTART;VALUE=DATE:2031${month}01`, `DTEND;VALUE=DATE:2031${month}03`, `SUMMARY:seq ${sequence}`);
    expect(dates(events(calendar(revision(2, "02"), revision(1, "01"))))).toEqual([["dup", "2031-02-01", "2031-02-03"]]);
    expect(dates(events(calendar(revision(1, "01"), revision(2, "02"))))).toEqual([["dup", "2031-02-01", "2031-02-03"]]);
  });

  it("keeps the raw properties as strings", () => {
    const text = calendar(
      vevent("UID:r1", "DTSTAMP:20310101T000000Z", "LAST-MODIFIED:20310102T030405Z", "SEQUENCE:4", "DTSTART;VALUE=DATE:20310101",
        "SUMMARY;LANGUAGE=en:Reserved", "LOCATION:Sea View", "STATUS:CONFIRMED", "DESCRIPTION:Hello\\, world"),
    );
    expect(events(text)[0]?.raw).toEqual({
      UID: "r1", SUMMARY: "Reserved", DESCRIPTION: "Hello, world", LOCATION: "Sea View", STATUS: "CONFIRMED",
      DTSTAMP: "2031-01-01T00:00:00.000Z", "LAST-MODIFIED": "2031-01-02T03:04:05.000Z", SEQUENCE: "4",
    });
  });

  it("reads only VEVENTs", () => {
    const text = calendar(
      ["BEGIN:VTODO", "UID:todo", "DTSTART;VALUE=DATE:20310101", "SUMMARY:Clean", "END:VTODO"].join("\r\n"),
      vevent("UID:ev", "DTSTART;VALUE=DATE:20310101"),
    );
    expect(events(text).map((e) => e.uid)).toEqual(["ev"]);
  });
});

describe("parseFeed: recurring events", () => {
  const series = (...extra: string[]) =>
    calendar(
      vevent("UID:weekend", "DTSTART;VALUE=DATE:20310104", "DTEND;VALUE=DATE:20310106", "RRULE:FREQ=WEEKLY;BYDAY=SA", "SUMMARY:Owner", ...extra),
      vevent("UID:weekend", "RECURRENCE-ID;VALUE=DATE:20310118", "DTSTART;VALUE=DATE:20310117", "DTEND;VALUE=DATE:20310120", "SUMMARY:Long"),
    );

  it("expands a weekly rule from one year back to the horizon, without EXDATEs, with overrides", () => {
    const list = events(series("EXDATE;VALUE=DATE:20310111"), { now: new Date(2031, 0, 1), source: "google" });
    expect(list.slice(0, 3).map((e) => [e.uid, e.start, e.end, e.summary])).toEqual([
      ["weekend#2031-01-04", "2031-01-04", "2031-01-06", "Owner"],
      ["weekend#2031-01-18", "2031-01-17", "2031-01-20", "Long"],
      ["weekend#2031-01-25", "2031-01-25", "2031-01-27", "Owner"],
    ]);
    const last = list.at(-1)!.start;
    expect(last > "2032-12-20" && last <= "2033-01-01").toBe(true); // 730 days after 1 January 2031
    expect(list.every((e) => e.kind === "block")).toBe(true);
  });

  it("follows horizonDays and keeps each occurrence's identity when the clock moves", () => {
    const short = parseFeed(series(), { source: "google", now: new Date(2031, 0, 1), horizonDays: 30 });
    expect(short.ok && short.events.map((e) => e.start)).toEqual(["2031-01-04", "2031-01-11", "2031-01-17", "2031-01-25"]);
    const later = events(series(), { now: new Date(2031, 0, 20), source: "google" });
    expect(later.find((e) => e.start === "2031-01-25")?.uid).toBe("weekend#2031-01-25");
  });

  it("cancels a single occurrence through a cancelled override", () => {
    const text = calendar(
      vevent("UID:s", "DTSTART;VALUE=DATE:20310104", "DTEND;VALUE=DATE:20310105", "RRULE:FREQ=DAILY;COUNT=3"),
      vevent("UID:s", "RECURRENCE-ID;VALUE=DATE:20310105", "DTSTART;VALUE=DATE:20310105", "DTEND;VALUE=DATE:20310106", "STATUS:CANCELLED"),
    );
    expect(events(text, { now: new Date(2031, 0, 1) }).map((e) => [e.uid, e.cancelled])).toEqual([
      ["s#2031-01-04", false],
      ["s#2031-01-05", true],
      ["s#2031-01-06", false],
    ]);
  });

  // Each of these would hold the event loop for seconds to minutes if expanded; the test's own timeout is the hang guard.
  it.each([
    ["every second", "FREQ=SECONDLY"],
    ["every 5 minutes, written as a yearly rule", "FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYMINUTE=0,5,10,15,20,25,30,35,40,45,50,55"],
    ["every minute, filtered to one hour a day", "FREQ=MINUTELY;BYHOUR=3"],
  ])("fails a feed with a rule repeating %s at once, neither hanging nor cutting it short", (_what, rule) => {
    const text = calendar(vevent("UID:dense", "DTSTART:20300101T000000Z", `RRULE:${rule}`, "SUMMARY:spam"));
    const result = parseFeed(text, { source: "google", now: new Date(Date.UTC(2031, 0, 1)) });
    expect(result).toEqual({ ok: false, error: { code: "parse_error", message: "feed expands to more than 50000 recurring occurrences" } });
  });

  it.each([
    ["300 series of a rule whose COUNT is reached only on a fifth Monday's hour", () =>
      Array.from({ length: 300 }, (_, i) => vevent(`UID:h${i}`, "DTSTART:20300101T000100Z", "RRULE:FREQ=HOURLY;BYDAY=5MO;COUNT=1"))],
    ["3,000 one-date series", () =>
      Array.from({ length: 3000 }, (_, i) => vevent(`UID:c${i}`, "DTSTART;VALUE=DATE:20310101", "RRULE:FREQ=DAILY;COUNT=1"))],
    ["a daily series with 5,000 EXDATEs", () => [
      vevent("UID:x", "DTSTART;VALUE=DATE:20300101", "RRULE:FREQ=DAILY",
        `EXDATE;VALUE=DATE:${Array.from({ length: 5000 }, (_, i) => new Date(Date.UTC(2030, 0, 1 + i)).toISOString().slice(0, 10).replaceAll("-", "")).join(",")}`),
    ]],
  ])("fails a feed of %s at once", (_what, events) => {
    const result = parseFeed(calendar(...events()), { source: "google", now: new Date(Date.UTC(2031, 0, 1)) });
    expect(result).toEqual({ ok: false, error: { code: "parse_error", message: "feed expands to more than 50000 recurring occurrences" } });
  });

  it("expands every occurrence of a rule that ends long before the window (COUNT) without counting its old span", () => {
    const text = calendar(vevent("UID:old", "DTSTART;VALUE=DATE:19900101", "RRULE:FREQ=DAILY;COUNT=10", "SUMMARY:Owner"));
    const result = parseFeed(text, { source: "google", now: new Date(2031, 0, 1) });
    expect(result.ok && result.events).toEqual([]); // all ten are older than the window
  });
});

describe("parseFeed: recurrence budget", () => {
  const dailySeries = (count: number) =>
    calendar(...Array.from({ length: count }, (_, i) => vevent(`UID:s${i}`, "DTSTART;VALUE=DATE:20300101", "RRULE:FREQ=DAILY", "SUMMARY:Owner")));

  it("expands 20 daily series over the whole window", () => {
    // One year back and 730 days ahead: 1095 or 1096 days each. 20 rather than the 45 the budget allows:
    // the 2 s last-resort clock of the expansion is wall time, and 40 took 0.7–0.95 s alone, over 2 s
    // beside the rest of the suite on two cores.
    const list = events(dailySeries(20), { now: new Date(2031, 0, 1) });
    expect(list.length).toBeGreaterThanOrEqual(20 * 1095);
    expect(list.length).toBeLessThanOrEqual(20 * 1096);
  });

  it("fails a feed whose series expand past 50,000 occurrences instead of cutting it short", () => {
    const result = parseFeed(dailySeries(100), { source: "google", now: new Date(2031, 0, 1) });
    expect(result).toEqual({ ok: false, error: { code: "parse_error", message: "feed expands to more than 50000 recurring occurrences" } });
  });
});

describe("parseFeed: not a calendar", () => {
  const error = (text: string) => {
    const result = parseFeed(text, { source: "airbnb", now });
    return result.ok ? null : result.error;
  };

  it("rejects an HTML page", () => {
    expect(error("<!doctype html><html><body>Log in</body></html>")).toEqual({
      code: "not_icalendar",
      message: "feed is not an iCalendar file (got HTML)",
    });
  });
  it("rejects an empty body", () => {
    expect(error("  \r\n ")).toEqual({ code: "not_icalendar", message: "feed is not an iCalendar file (empty)" });
  });
  it("rejects a truncated calendar", () => {
    const text = buildIcs([{ uid: "a", start: day(1) }]);
    expect(error(text.slice(0, text.indexOf("END:VEVENT")))).toMatchObject({ code: "not_icalendar", message: expect.stringContaining("truncated") });
  });
  it("rejects plain text", () => {
    expect(error("Service temporarily unavailable")?.code).toBe("not_icalendar");
  });
  it("reads a series whose RRULE node-ical cannot parse as one unreadable event, not a failed feed (CONTRACT §4)", () => {
    const text = calendar(vevent("UID:bad", "DTSTART;VALUE=DATE:20310101", "RRULE:FREQ=SOMETIMES"));
    expect(error(text)).toBeNull();
    expect(events(text)).toEqual([]);
  });
  it("reports unbalanced components as parse_error", () => {
    expect(error(calendar("END:VEVENT", "END:VEVENT"))?.code).toBe("parse_error");
  });
});

describe("parseFeed: hostile and broken input never throws", () => {
  const one = vevent("UID:one", "DTSTART;VALUE=DATE:20310310", "DTEND;VALUE=DATE:20310312", "SUMMARY:Reserved");
  const expectOne = (text: string) => expect(dates(events(text))).toEqual([["one", "2031-03-10", "2031-03-12"]]);

  it("reads CR-only line endings", () => expectOne(calendar(one).replace(/\r\n/g, "\r")));
  it("reads LF-only line endings", () => expectOne(calendar(one).replace(/\r\n/g, "\n")));
  it("reads a feed starting with a BOM", () => expectOne(`\uFEFF${calendar(one)}`));
  it("accepts trailing blank lines and lower-case markers", () => expectOne(`${calendar(one).replace("BEGIN:VCALENDAR", "begin:vcalendar")}\r\n\r\n`));

  it("unfolds folded lines", () => {
    const text = calendar(vevent("UID:fo", " ld", "DTSTART;VALUE=DATE:20310310", "SUMMARY:Res", " erved - Jane", "\tDoe"));
    expect(events(text, { source: "other" })[0]).toMatchObject({ uid: "fold", summary: "Reserved - JaneDoe" });
  });

  it("parses 20,000 events", () => {
    const many = Array.from({ length: 20_000 }, (_, i) => ({ uid: `e${i}`, start: "2031-01-01", end: "2031-01-02" }));
    expect(events(buildIcs(many))).toHaveLength(20_000);
  });

  it("survives deeply nested unknown components", () => {
    const nested = `${"BEGIN:X-NEST\r\n".repeat(20_000)}${"END:X-NEST\r\n".repeat(20_000)}`;
    expectOne(calendar(nested + one));
  });

  it("keeps very long lines", () => {
    const long = "x".repeat(1_000_000);
    const text = calendar(vevent("UID:long", "DTSTART;VALUE=DATE:20310101", `SUMMARY:${long}`, `DESCRIPTION:${long}`));
    const [event] = events(text);
    expect(event?.summary).toHaveLength(1_000_000);
    expect(event?.details.description).toHaveLength(1000);
  });

  it("treats UID:__proto__ as an ordinary identity and pollutes nothing", () => {
    const text = calendar(
      vevent("UID:__proto__", "DTSTART;VALUE=DATE:20310101", "SUMMARY:proto"),
      vevent("UID:constructor", "DTSTART;VALUE=DATE:20310102", "SUMMARY:ctor"),
    );
    expect(events(text).map((e) => [e.uid, e.summary])).toEqual([
      ["__proto__", "proto"],
      ["constructor", "ctor"],
    ]);
    expect(({} as Record<string, unknown>)["summary"]).toBeUndefined();
  });

  it("reads an unknown TZID without throwing", () => {
    const text = calendar(vevent("UID:mars", "DTSTART;TZID=Mars/Olympus_Mons:20310101T100000", "DTEND;TZID=Mars/Olympus_Mons:20310101T120000"));
    const [event] = events(text);
    expect(event?.start).toMatch(/^2031-01-01T\d\d:00:00\.000Z$/);
    expect(event?.end).toMatch(/^2031-01-01T\d\d:00:00\.000Z$/);
  });

  it("sets aside an event whose DTSTART is not a date, naming it", () => {
    const text = calendar(vevent("UID:bad", "DTSTART:garbage", "SUMMARY:x"), one);
    expectOne(text);
    const result = parseFeed(text, { source: "other", now });
    expect(result.ok && result.unreadable).toEqual([{ uid: "bad", message: 'DTSTART "garbage" is not a date' }]);
  });

  it("keeps replacement characters from invalid UTF-8", () => {
    // The fetcher decodes bytes as UTF-8 before parsing, so broken bytes arrive as U+FFFD.
    const bytes = Buffer.from(calendar(vevent("UID:u", "DTSTART;VALUE=DATE:20310101", "SUMMARY:Caf@ au lait")));
    bytes[bytes.indexOf("@")] = 0xe9; // Latin-1 "é", invalid on its own in UTF-8
    const [event] = events(bytes.toString("utf8"));
    expect(event).toMatchObject({ uid: "u", summary: "Caf\uFFFD au lait", start: "2031-01-01" });
  });

  it("drops NUL characters, which iCalendar forbids and PostgreSQL text cannot hold", () => {
    const [event] = events(calendar(vevent("UID:u\0v", "DTSTART;VALUE=DATE:20310101", "SUMMARY:Res\0erved", "DESCRIPTION:a\0b")));
    expect(event).toMatchObject({ uid: "uv", summary: "Reserved", start: "2031-01-01" });
    expect(JSON.stringify(event)).not.toContain("\\u0000");
  });
});
