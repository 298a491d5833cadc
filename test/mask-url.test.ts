// maskUrl: what listings, logs and error messages show of a feed URL.
import { describe, expect, it } from "vitest";
import { maskUrl } from "../src/engine/mask-url.js";

describe("maskUrl", () => {
  it.each([
    ["masks the Airbnb query secret and keeps the listing id", "https://www.airbnb.com/calendar/ical/12345678.ics?s=abcdef0123", "https://www.airbnb.com/calendar/ical/12345678.ics?s=***"],
    [
      "masks every query value of a Booking.com feed",
      "https://admin.booking.com/hotel/hoteladmin/ical.html?t=2f7e4b9c-1a2b-4c3d-9e8f-0123456789ab&lang=en",
      "https://admin.booking.com/hotel/hoteladmin/ical.html?t=***&lang=***",
    ],
    [
      "masks a hex token used as the .ics file name and keeps the extension",
      "http://www.vrbo.com/icalendar/0123456789abcdef0123456789abcdef.ics?nonTentative",
      "http://www.vrbo.com/icalendar/***.ics?nonTentative",
    ],
    [
      "masks Google's private-<hex> segment",
      "https://calendar.google.com/calendar/ical/owner%40example.com/private-0123456789abcdef0123456789abcdef/basic.ics",
      "https://calendar.google.com/calendar/ical/owner%40example.com/***/basic.ics",
    ],
    [
      "masks Booking.com's t= token",
      "https://admin.booking.com/hotel/hoteladmin/ical.html?t=7d3c9a1e-55b2-4f0e-9c6d-2b8e4a1f3c70",
      "https://admin.booking.com/hotel/hoteladmin/ical.html?t=***",
    ],
    [
      "masks a Google secret address and keeps the calendar id and file name",
      "https://calendar.google.com/calendar/ical/abc%40group.calendar.google.com/private-0123456789abcdef0123456789abcdef/basic.ics",
      "https://calendar.google.com/calendar/ical/abc%40group.calendar.google.com/***/basic.ics",
    ],
    [
      "masks an iCloud published-calendar token",
      "webcal://p23-caldav.icloud.com/published/2/MTAxNzg5NjQ4MTAxNzg5NlbR0dBw7XZC2Fh9rKq3jM1uYt8oWc4vPn",
      "webcal://p23-caldav.icloud.com/published/2/***",
    ],
    ["masks a long mixed-case token that happens to hold no digit", "https://ical.example.com/feed/QwErTyUiOpAsDfGhJkLzXcVbNm.ics", "https://ical.example.com/feed/***.ics"],
    ["masks a UUID path segment", "https://feeds.example.com/cal/6f1c2d3e-4b5a-4c6d-8e7f-901234567890/export", "https://feeds.example.com/cal/***/export"],
    ["masks a long mixed letters+digits token", "https://ical.example.com/export/Xk29fLq81ZpR0vTw7YbN.ics", "https://ical.example.com/export/***.ics"],
    ["masks user and password", "https://owner:hunter2@cal.example.com/feed.ics", "https://***@cal.example.com/feed.ics"],
    ["keeps webcal and the port", "webcal://cal.example.com:8443/feed.ics?key=abc", "webcal://cal.example.com:8443/feed.ics?key=***"],
    ["masks a bare token in the query", "https://cal.example.com/feed.ics?9f8e7d6c5b4a39281706f5e4", "https://cal.example.com/feed.ics?***"],
    ["masks the fragment", "https://cal.example.com/feed.ics#token=abc", "https://cal.example.com/feed.ics#***"],
    ["masks a long lowercase-only token and keeps the extension", "https://example.com/ical/kqzjwmvtprxhlbnsdfgyabcdwx.ics", "https://example.com/ical/***.ics"],
    ["masks a 19-digit numeric path segment", "https://example.com/export/1234567890123456789/cal.ics", "https://example.com/export/***/cal.ics"],
    ["masks the value of a matrix ;name=value path parameter", "https://example.com/ical;token=abc123def456ghi789", "https://example.com/ical;token=***"],
    ["leaves a URL without secrets alone", "https://cal.example.com/owners/anna/calendar.ics", "https://cal.example.com/owners/anna/calendar.ics"],
  ])("%s", (_name, input, expected) => {
    expect(maskUrl(input)).toBe(expected);
  });

  it("keeps short words and plain numbers readable", () => {
    expect(maskUrl("https://example.com/listing/98765432101234/calendar-export.ics")).toBe(
      "https://example.com/listing/98765432101234/calendar-export.ics",
    );
    expect(maskUrl("https://www.tripadvisor.com/VacationRentalCalendar/ical/853412.ics")).toBe(
      "https://www.tripadvisor.com/VacationRentalCalendar/ical/853412.ics",
    );
  });

  it("keeps an ordinary path of words, short ids and a slug readable", () => {
    const url = "https://example.com/export/calendar/ical/4521/beach-house-north-wing.ics";
    expect(maskUrl(url)).toBe(url);
  });

  it.each(["", "not a url", "http://", "://missing-scheme"])("answers <invalid url> for %j instead of throwing", (input) => {
    expect(maskUrl(input)).toBe("<invalid url>");
  });

  it("never lets the secret through in any part", () => {
    const secret = "Zq81s3cr3tT0kenValue99";
    const masked = maskUrl(`https://u:${secret}@h.example.com/${secret}/${secret}.ics?a=${secret}&${secret}#${secret}`);
    expect(masked).not.toContain(secret);
    expect(masked).toBe("https://***@h.example.com/***/***.ics?a=***&***#***");
  });
});
