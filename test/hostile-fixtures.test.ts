// Broken and hostile feeds kept as files in test/fixtures (byte for byte: see fixtures/.gitattributes).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { FeedEvent } from "../src/engine/model.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import type { CalendarSource } from "../src/types.js";

/** Parses a fixture as of 1 January 2031 (the fixtures' dates are later, so they never go stale). */
function fixture(name: string, source: CalendarSource = "other"): FeedEvent[] {
  const text = readFileSync(new URL(`./fixtures/${name}.ics`, import.meta.url), "utf8");
  const result = parseFeed(text, { source, now: new Date(2031, 0, 1) });
  if (!result.ok) throw new Error(`${name}: ${result.error.message}`);
  return result.events;
}
const brief = (events: FeedEvent[]) => events.map((e) => [e.uid, e.kind, e.start, e.end, e.summary]);

describe("hostile fixtures", () => {
  it("reads a feed with a BOM, CRLF, LF and CR line ends mixed, and folded lines", () => {
    const events = fixture("line-endings-mixed");
    expect(brief(events)).toEqual([
      ["mixed-1@example.com", "booking", "2031-06-10", "2031-06-14", "Reserved - María José"],
      ["mixed-2@example.com", "block", "2031-07-01", "2031-07-03", "Blocked"],
    ]);
    expect(events[0]?.details.description).toBe("Line one\nline two, with a comma and a long tail that goes on and on");
  });

  it("reads a CR-only feed", () => {
    expect(brief(fixture("cr-only"))).toEqual([["cr-1@example.com", "booking", "2031-08-01", "2031-08-05", "Reserved"]]);
  });

  it("treats UIDs named like Object properties as plain identities and pollutes no prototype", () => {
    expect(brief(fixture("proto-uid"))).toEqual([
      ["__proto__", "booking", "2031-09-01", "2031-09-03", "Reserved"],
      ["constructor", "booking", "2031-09-05", "2031-09-06", "Reserved"],
      ["prototype", "block", "2031-09-10", "2031-09-12", "Not available"],
      ["hasOwnProperty", "booking", "2031-09-15", "2031-09-16", "Reserved"],
      ["toString", "booking", "2031-09-20", "2031-09-21", "Reserved"],
    ]);
    const probe: Record<string, unknown> = {};
    expect([probe["polluted"], probe["x-polluted"], probe["summary"], probe["start"]]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("names the event whose start cannot be read instead of reading it", () => {
    const text = readFileSync(new URL("./fixtures/broken-dates.ics", import.meta.url), "utf8");
    const result = parseFeed(text, { source: "other", now: new Date(2031, 0, 1) });
    expect(result.ok && result.unreadable).toEqual([{ uid: "garbage@example.com", message: 'DTSTART "next tuesday" is not a date' }]);
  });

  it("repairs what it can in broken dates, skips an unreadable start, and reads only VEVENTs", () => {
    const events = fixture("broken-dates");
    // the VALARM's description is the alarm's, not the stay's
    expect(events.find((e) => e.uid === "alarm@example.com")?.details).toEqual({});
    expect(brief(events)).toEqual([
      // no DTEND on a date: one night
      ["no-end@example.com", "booking", "2031-10-01", "2031-10-02", "Reserved"],
      // DTEND before DTSTART on a date: read like a missing DTEND
      ["inverted@example.com", "booking", "2031-10-10", "2031-10-11", "Reserved"],
      ["duration@example.com", "booking", "2031-10-15T14:00:00.000Z", "2031-10-18T10:00:00.000Z", "Reserved"],
      // no DTEND on a date-time: an instant
      ["instant@example.com", "booking", "2031-10-20T10:00:00.000Z", "2031-10-20T10:00:00.000Z", "Key handover"],
      ["alarm@example.com", "booking", "2031-10-25", "2031-10-28", "Reserved"],
    ]);
  });

  it("reads Outlook's Windows zone names through their VTIMEZONE", () => {
    // 16:00 and 10:00 in Berlin in July (UTC+2)
    expect(brief(fixture("outlook-windows-tz"))).toEqual([
      [expect.stringMatching(/@outlook$/), "block", "2031-07-12T14:00:00.000Z", "2031-07-19T08:00:00.000Z", "Owner"],
    ]);
  });
});
