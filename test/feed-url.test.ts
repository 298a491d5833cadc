// normalizeFeedUrl: two spellings of one feed compare equal; different feeds never do.
import { describe, expect, it } from "vitest";
import { normalizeFeedUrl, sameFeedUrl } from "../src/engine/feed-url.js";

const BASE = "https://www.airbnb.com/calendar/ical/123.ics?s=abc&t=1";

describe("normalizeFeedUrl", () => {
  it.each([
    ["webcal scheme", "webcal://www.airbnb.com/calendar/ical/123.ics?s=abc&t=1"],
    ["webcals scheme", "WEBCALS://www.airbnb.com/calendar/ical/123.ics?s=abc&t=1"],
    ["http instead of https", "http://www.airbnb.com/calendar/ical/123.ics?s=abc&t=1"],
    ["host case", "https://WWW.Airbnb.COM/calendar/ical/123.ics?s=abc&t=1"],
    ["a trailing dot on the host", "https://www.airbnb.com./calendar/ical/123.ics?s=abc&t=1"],
    ["the default port", "https://www.airbnb.com:443/calendar/ical/123.ics?s=abc&t=1"],
    ["a trailing slash", "https://www.airbnb.com/calendar/ical/123.ics/?s=abc&t=1"],
    ["query order", "https://www.airbnb.com/calendar/ical/123.ics?t=1&s=abc"],
    ["an empty query item", "https://www.airbnb.com/calendar/ical/123.ics?s=abc&&t=1&"],
    ["an escaped unreserved character", "https://www.airbnb.com/calendar/ical/%31%32%33.ics?s=%61bc&t=1"],
    ["a fragment", "https://www.airbnb.com/calendar/ical/123.ics?s=abc&t=1#top"],
    ["spaces around it", "  https://www.airbnb.com/calendar/ical/123.ics?s=abc&t=1\n"],
    ["dot segments", "https://www.airbnb.com/calendar/x/../ical/./123.ics?s=abc&t=1"],
  ])("reads %s as the same feed", (_what, spelling) => {
    expect(normalizeFeedUrl(spelling)).toBe(normalizeFeedUrl(BASE));
    expect(sameFeedUrl(spelling, BASE)).toBe(true);
  });

  it("writes the normal form as https, lower-case host, sorted query, no trailing slash", () => {
    expect(normalizeFeedUrl("webcal://Cal.Example.COM:443/a/b/?z=1&a=2")).toBe("https://cal.example.com/a/b?a=2&z=1");
    expect(normalizeFeedUrl("http://Cal.Example.com:80/")).toBe("https://cal.example.com");
    expect(normalizeFeedUrl("https://cal.example.com/%7euser/%2fx.ics")).toBe("https://cal.example.com/~user/%2Fx.ics");
  });

  it.each([
    ["another path", "https://www.airbnb.com/calendar/ical/124.ics?s=abc&t=1"],
    ["path case", "https://www.airbnb.com/calendar/ical/123.ICS?s=abc&t=1"],
    ["another query value", "https://www.airbnb.com/calendar/ical/123.ics?s=abd&t=1"],
    ["a missing query parameter", "https://www.airbnb.com/calendar/ical/123.ics?s=abc"],
    ["another host", "https://airbnb.com/calendar/ical/123.ics?s=abc&t=1"],
    ["another port", "https://www.airbnb.com:8443/calendar/ical/123.ics?s=abc&t=1"],
    ["other credentials", "https://ann:pw@www.airbnb.com/calendar/ical/123.ics?s=abc&t=1"],
    ["an escaped slash", "https://www.airbnb.com/calendar%2Fical/123.ics?s=abc&t=1"],
  ])("keeps %s a different feed", (_what, other) => {
    expect(sameFeedUrl(other, BASE)).toBe(false);
  });

  it("keeps the order of a repeated parameter's values", () => {
    expect(sameFeedUrl("https://x.example/f.ics?a=1&a=2", "https://x.example/f.ics?a=2&a=1")).toBe(false);
    expect(sameFeedUrl("https://x.example/f.ics?b=0&a=1&a=2", "https://x.example/f.ics?a=1&b=0&a=2")).toBe(true);
  });

  it("gives nothing for what is not an http(s) or webcal URL, and such URLs are never the same feed", () => {
    for (const raw of ["", "not a url", "ftp://example.com/a.ics", "mailto:ann@example.com", "/ical/abc.ics"]) {
      expect(normalizeFeedUrl(raw)).toBeUndefined();
    }
    expect(sameFeedUrl("not a url", "not a url")).toBe(false);
  });
});
