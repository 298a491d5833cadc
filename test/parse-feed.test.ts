import { describe, expect, it } from "vitest";
import { parseFeed } from "../src/engine/parse-feed.js";
import { buildIcs, day } from "./helpers/ics.js";

const now = new Date();

describe("parseFeed", () => {
  it("keeps all-day dates as written and defaults a missing DTEND to one night", () => {
    const text = buildIcs([
      { uid: "a@x", start: "2031-03-10", end: "2031-03-14", summary: "Reserved" },
      { uid: "b@x", start: "2031-04-01", summary: "Blocked" },
    ]);
    const result = parseFeed(text, { source: "other", now });
    expect(result).toMatchObject({ ok: true });
    if (!result.ok) return;
    expect(result.events.map((e) => [e.uid, e.start, e.end, e.kind])).toEqual([
      ["a@x", "2031-03-10", "2031-03-14", "booking"],
      ["b@x", "2031-04-01", "2031-04-02", "block"],
    ]);
  });

  it("rejects an HTML page as not_icalendar", () => {
    const result = parseFeed("<!doctype html><html><body>Log in</body></html>", { source: "airbnb", now });
    expect(result).toEqual({ ok: false, error: { code: "not_icalendar", message: "feed is not an iCalendar file (got HTML)" } });
  });

  it("reads relative dates from the helper", () => {
    const result = parseFeed(buildIcs([{ uid: "r", start: day(3), end: day(5) }]), { source: "other", now });
    expect(result.ok && result.events[0]).toMatchObject({ start: day(3), end: day(5) });
  });
});
