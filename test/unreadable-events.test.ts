// Unreadable events (CONTRACT §4): what parseFeed sets aside, and what diffReservations keeps for them.
import { describe, expect, it } from "vitest";
import { diffReservations } from "../src/engine/diff.js";
import type { FeedEvent, StoredReservation } from "../src/engine/model.js";
import { addDays } from "../src/engine/nights.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import { applyDiff } from "./helpers/apply-diff.js";
import { DAMAGES, damageEvent } from "./helpers/damage.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";

const now = new Date();
const calendar = (...lines: string[]) => ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...lines, "END:VCALENDAR"].join("\r\n");
const vevent = (...lines: string[]) => ["BEGIN:VEVENT", ...lines, "END:VEVENT"].join("\r\n");

function parse(text: string) {
  const result = parseFeed(text, { source: "other", now });
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result;
}
const uids = (list: Array<{ uid: string }>) => list.map((item) => item.uid);

const stays: IcsEvent[] = [
  { uid: "a@x", start: day(10), end: day(13), summary: "Reserved" },
  { uid: "b@x", start: day(20), end: day(24), summary: "Reserved" },
  { uid: "c@x", start: day(30), end: day(32), summary: "Reserved" },
];

describe("parseFeed sets unreadable events aside", () => {
  it.each(DAMAGES.map((damage) => [damage.name, damage] as const))("%s: a@x is left out and named, the others are read", (_name, damage) => {
    const result = parse(damageEvent(buildIcs(stays), "a@x", damage));
    expect(uids(result.events)).toEqual(["b@x", "c@x"]);
    expect(result.unreadable).toEqual([{ uid: "a@x", message: expect.stringMatching(/^(DTSTART|DTEND) /) }]);
  });

  it("says which line is wrong and why", () => {
    const messages = DAMAGES.map((damage) => parse(damageEvent(buildIcs(stays), "a@x", damage)).unreadable[0]?.message);
    expect(messages).toEqual([
      'DTSTART "2026XX01" is not a date',
      "DTSTART is missing",
      'DTSTART "tomorrow" is not a date',
      'DTSTART "20271340" is not a real date (no month 13)',
      'DTEND "20270230" is not a real date (no day 30 in that month)',
      'DTSTART "20271301T150000Z" is not a real date (no month 13)',
      'DTSTART "20270230T150000" is not a real date (no day 30 in that month)',
    ]);
  });

  it("reads a folded DTSTART whole, and a TZID in quotes", () => {
    const text = calendar(
      vevent("UID:folded", "DTSTART;VALUE=DATE:2031", " 0310", "DTEND;VALUE=DATE:20310312"),
      vevent("UID:quoted", 'DTSTART;TZID="Europe/Paris":20310401T150000', 'DTEND;TZID="Europe/Paris":20310403T100000'),
      vevent("UID:quoted-bad", 'DTSTART;TZID="Europe/Paris":20310231T150000'),
    );
    const result = parse(text);
    expect(result.events.map((e) => [e.uid, e.start, e.end])).toEqual([
      ["folded", "2031-03-10", "2031-03-12"],
      ["quoted", "2031-04-01T13:00:00.000Z", "2031-04-03T08:00:00.000Z"],
    ]);
    expect(uids(result.unreadable)).toEqual(["quoted-bad"]);
  });

  it("still reads DURATION without DTEND, and a DATE-TIME written with VALUE=DATE as that date", () => {
    const text = calendar(
      vevent("UID:duration", "DTSTART:20311015T140000Z", "DURATION:P2DT20H"),
      vevent("UID:mixed", "DTSTART;VALUE=DATE:20311020T150000Z", "DTEND;VALUE=DATE:20311022"),
    );
    const result = parse(text);
    expect(result.unreadable).toEqual([]);
    expect(result.events.map((e) => [e.uid, e.start, e.end])).toEqual([
      ["duration", "2031-10-15T14:00:00.000Z", "2031-10-18T10:00:00.000Z"],
      ["mixed", "2031-10-20", "2031-10-22"],
    ]);
  });

  it("reads an all-day date with stray spaces after it, as node-ical does, instead of skipping a real stay", () => {
    const result = parse(calendar(vevent("UID:spaced", "DTSTART;VALUE=DATE:20310310 ", "DTEND;VALUE=DATE:20310312\t", "SUMMARY:Reserved")));
    expect(result.unreadable).toEqual([]);
    expect(result.events.map((e) => [e.uid, e.start, e.end])).toEqual([["spaced", "2031-03-10", "2031-03-12"]]);
    // Spaces never make an impossible date readable.
    expect(uids(parse(calendar(vevent("UID:bad", "DTSTART;VALUE=DATE:20310230 "))).unreadable)).toEqual(["bad"]);
  });

  it("does not take a nested component's DTSTART for the event's own", () => {
    const alarm = ["BEGIN:VALARM", "ACTION:DISPLAY", "DTSTART:20310101T100000Z", "TRIGGER:-P1D", "END:VALARM"];
    const result = parse(calendar(vevent("UID:inner", ...alarm, "SUMMARY:Reserved")));
    expect(result.unreadable).toEqual([{ uid: "inner", message: "DTSTART is missing" }]);
    expect(result.events).toEqual([]);
  });

  it("reads a lower-case dtstart as DTSTART: names and enumerated values are case-insensitive (RFC 5545 §3.1)", () => {
    const result = parse(calendar(vevent("UID:lower", "dtstart;value=date:20310310", "DTEND;VALUE=DATE:20310312")));
    expect(result.events.map((e) => [e.uid, e.start, e.end])).toEqual([["lower", "2031-03-10", "2031-03-12"]]);
    expect(result.unreadable).toEqual([]);
  });

  it("leaves out a series whose RRULE cannot be read as one unreadable event, and reads the others", () => {
    for (const rule of ["FREQ=SOMETIMES", "FREQ=WEEKLY;BYDAY=XX", "FREQ=WEEKLY;COUNT=x", "FREQ=WEEKLY;UNTIL=tomorrow", "garbage", ""]) {
      const result = parse(calendar(
        vevent("UID:series", "DTSTART;VALUE=DATE:20310301", "DTEND;VALUE=DATE:20310302", `RRULE:${rule}`),
        vevent("UID:free", "DTSTART;VALUE=DATE:20310301", "DTEND;VALUE=DATE:20310302", "TRANSP:TRANSPARENT", `RRULE:${rule}`),
        vevent("UID:other", "DTSTART;VALUE=DATE:20310310", "DTEND;VALUE=DATE:20310312"),
      ));
      expect(uids(result.events)).toEqual(["other"]);
      expect(result.unreadable).toEqual([
        { uid: "series", message: expect.stringMatching(/^RRULE .* cannot be read/) },
        { uid: "free", message: expect.stringMatching(/^RRULE .* cannot be read/) },
      ]);
    }
  });

  it("leaves out an unreadable event without UID and still reads the other events without UID", () => {
    const result = parse(
      calendar(
        vevent("DTSTART;VALUE=DATE:20310230", "DTEND;VALUE=DATE:20310305", "SUMMARY:Reserved"),
        vevent("DTSTART;VALUE=DATE:20310310", "DTEND;VALUE=DATE:20310312", "SUMMARY:Reserved"),
      ),
    );
    expect(result.events.map((e) => [e.start, e.end])).toEqual([["2031-03-10", "2031-03-12"]]);
    expect(result.unreadable).toEqual([{ uid: "", message: expect.stringMatching(/^DTSTART "20310230"/) }]);
  });

  it("leaves a UID out whole when one of its copies is unreadable", () => {
    const good = vevent("UID:twice", "SEQUENCE:1", "DTSTART;VALUE=DATE:20310310", "DTEND;VALUE=DATE:20310312");
    const bad = vevent("UID:twice", "SEQUENCE:0", "DTSTART;VALUE=DATE:20311340", "DTEND;VALUE=DATE:20310312");
    for (const text of [calendar(good, bad), calendar(bad, good)]) {
      const result = parse(text);
      expect(result.events).toEqual([]);
      expect(uids(result.unreadable)).toEqual(["twice"]);
    }
  });

  it("leaves a recurring series out whole when one of its overrides is unreadable", () => {
    const series = vevent("UID:weekly", "DTSTART;VALUE=DATE:20310301", "DTEND;VALUE=DATE:20310302", "RRULE:FREQ=WEEKLY;COUNT=4");
    const override = vevent("UID:weekly", "RECURRENCE-ID;VALUE=DATE:20310308", "DTSTART;VALUE=DATE:20310230", "DTEND;VALUE=DATE:20310310");
    const result = parseFeed(calendar(series, override), { source: "other", now: new Date(2031, 0, 1) });
    expect(result.ok && result.events).toEqual([]);
    expect(result.ok && uids(result.unreadable)).toEqual(["weekly"]);
  });

  it("does not store or count a transparent event, nor warn about its dates", () => {
    const result = parse(
      calendar(
        vevent("UID:plumber", "DTSTART:20310310T090000Z", "DTEND:20310310T100000Z", "TRANSP:TRANSPARENT", "SUMMARY:Plumber"),
        vevent("UID:reminder", "DTSTART;VALUE=DATE:20310230", "TRANSP:TRANSPARENT", "SUMMARY:Call the cleaner"),
        vevent("UID:stay", "DTSTART;VALUE=DATE:20310312", "DTEND;VALUE=DATE:20310315", "TRANSP:OPAQUE", "SUMMARY:Reserved"),
      ),
    );
    expect(uids(result.events)).toEqual(["stay"]);
    expect(result.unreadable).toEqual([]);
  });
});

/** Stored reservations after syncing `events` into an empty calendar. */
function storedFrom(events: IcsEvent[]): StoredReservation[] {
  return applyDiff([], diffReservations([], parse(buildIcs(events)).events, { now }));
}

/** Diffs `text` against `stored` the way the engine does: the unreadable UIDs go along. */
function diffText(stored: StoredReservation[], text: string, force = false) {
  const parsed = parse(text);
  return diffReservations(stored, parsed.events, { now, force, unreadable: parsed.unreadable.map((event) => event.uid) });
}

describe("diffReservations keeps what an unreadable event stands for", () => {
  it("neither cancels nor updates a stored reservation whose event is unreadable, and counts it as found", () => {
    const stored = storedFrom(stays);
    const diff = diffText(stored, damageEvent(buildIcs(stays), "a@x", DAMAGES[0]!));
    expect(diff.counts).toEqual({ found: 3, created: 0, updated: 0, cancelled: 0 });
    expect([diff.inserts, diff.updates, diff.cancels]).toEqual([[], [], []]);
  });

  it("skips an unreadable event with a new UID", () => {
    const diff = diffText(storedFrom(stays.slice(1)), damageEvent(buildIcs(stays), "a@x", DAMAGES[3]!));
    expect(diff.counts).toEqual({ found: 2, created: 0, updated: 0, cancelled: 0 });
    expect(diff.inserts).toEqual([]);
  });

  it("leaves a cancelled reservation cancelled, and does not count it", () => {
    const stored = storedFrom(stays).map((row) => (row.uid === "a@x" ? { ...row, status: "cancelled" as const } : row));
    const diff = diffText(stored, damageEvent(buildIcs(stays), "a@x", DAMAGES[4]!));
    expect(diff.counts).toEqual({ found: 2, created: 0, updated: 0, cancelled: 0 });
    expect(diff.updates).toEqual([]);
  });

  it("sees unreadable events as present for the mass-cancellation guard", () => {
    const stored = storedFrom(stays.slice(0, 2));
    // a@x unreadable, b@x gone: one of two upcoming stays cancelled, which is not every one
    const diff = diffText(stored, damageEvent(buildIcs([stays[0]!]), "a@x", DAMAGES[1]!));
    expect(diff.suspicious).toBeNull();
    expect(diff.cancels).toEqual([stored.find((row) => row.uid === "b@x")!.id]);
  });

  it("never lets a new block take over a stored block whose event is unreadable", () => {
    const block = { uid: "window", start: day(100), end: day(365), summary: "Not available" };
    const stored = storedFrom([block]);
    const moved = { uid: "window-2", start: day(101), end: day(365), summary: "Not available" };
    const diff = diffText(stored, damageEvent(buildIcs([block, moved]), "window", DAMAGES[4]!));
    expect(diff.updates).toEqual([]);
    expect(diff.inserts.map((event) => event.uid)).toEqual(["window-2"]);
    expect(diff.counts).toEqual({ found: 2, created: 1, updated: 0, cancelled: 0 });
  });

  it("keeps the stored occurrences of a recurring series whose event is unreadable", () => {
    const stored = ["2031-03-01", "2031-03-08"].map((date, i) => ({
      id: `r${i}`,
      calendarId: "cal",
      uid: `weekly#${date}`,
      kind: "booking" as const,
      status: "active" as const,
      start: date,
      end: date,
      summary: "Reserved",
      details: {},
      arrival: date,
      departure: addDays(date, 1),
      eventZone: null,
    }));
    const diff = diffReservations(stored, [], { now: new Date(2031, 0, 1), unreadable: ["weekly"] });
    expect(diff.counts).toEqual({ found: 2, created: 0, updated: 0, cancelled: 0 });
    expect(diffReservations(stored, [], { now: new Date(2031, 0, 1), unreadable: ["week"] }).cancels).toHaveLength(2);
  });

  it("keeps stored events without UID while an event without UID is unreadable (which one it was cannot be known)", () => {
    const stored = storedFrom([{ start: day(10), end: day(12), summary: "Reserved" }]);
    const damaged = calendar(vevent("DTSTART;VALUE=DATE:20310230", "DTEND;VALUE=DATE:20310305", "SUMMARY:Reserved"));
    expect(diffText(stored, damaged).counts).toEqual({ found: 1, created: 0, updated: 0, cancelled: 0 });
  });
});
