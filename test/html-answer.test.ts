// explainHtmlAnswer: a web page where a feed belongs gets a message that says where the export link is.
import { describe, expect, it } from "vitest";
import { explainHtmlAnswer } from "../src/engine/html-answer.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import type { CalendarSource, SyncError } from "../src/types.js";

const PAGE = "<!DOCTYPE html>\n<html><head><title>Listing</title></head><body>Lovely loft</body></html>";

/** The error parseFeed gives `body`, explained for `url` and `source`. */
function explain(url: string, source: CalendarSource, body = PAGE): SyncError {
  const parsed = parseFeed(body, { source, now: new Date() });
  if (parsed.ok) throw new Error("expected the body to be refused");
  return explainHtmlAnswer(parsed.error, { body, source, urls: [url] });
}

describe("explainHtmlAnswer", () => {
  it("names an Airbnb listing page and Airbnb's export menu, keeping not_icalendar", () => {
    const error = explain("https://www.airbnb.com/rooms/123?guests=2", "airbnb");
    expect(error.code).toBe("not_icalendar");
    expect(error.message).toMatch(/^feed is not an iCalendar file \(got HTML\): this is an Airbnb listing page/);
    expect(error.message).toContain("Availability → Connect calendars → Export calendar");
  });

  it("recognises an Airbnb listing path on an unknown host", () => {
    const error = explain("http://127.0.0.1:8080/rooms/123", "other");
    expect(error.message).toMatch(/looks like an Airbnb listing page \(\/rooms\/…\)/);
    expect(error.message).toContain("Availability → Connect calendars → Export calendar");
  });

  it("names the Booking.com extranet and its Sync calendars menu", () => {
    const error = explain("https://admin.booking.com/hotel/hoteladmin/extranet_ng/manage/home.html?hotel_id=1", "booking");
    expect(error.message).toMatch(/a page of the Booking\.com extranet/);
    expect(error.message).toContain("Rates & Availability → Sync calendars");
  });

  it("points a Vrbo page at Calendar → Import/Export", () => {
    expect(explain("https://www.vrbo.com/1234567", "vrbo").message).toContain("Calendar → Import/Export");
  });

  it("takes the channel from a redirect's host when the source is not known", () => {
    const error = explainHtmlAnswer(
      { code: "not_icalendar", message: "feed is not an iCalendar file (got HTML)" },
      { body: PAGE, source: "other", urls: ["https://short.example/x", "https://www.vrbo.com/1234567"] },
    );
    expect(error.message).toContain("Calendar → Import/Export");
  });

  it("gives other channels a general hint", () => {
    expect(explain("https://example.com/calendar", "other").message).toMatch(/answered a web page .*calendar export link/);
  });

  it("leaves every other error alone, and not_icalendar for a body that is not HTML", () => {
    const http: SyncError = { code: "http_error", message: "feed answered HTTP 503", httpStatus: 503 };
    expect(explainHtmlAnswer(http, { body: PAGE, source: "airbnb", urls: ["https://www.airbnb.com/rooms/1"] })).toBe(http);
    const empty = explain("https://www.airbnb.com/rooms/1", "airbnb", "");
    expect(empty.code).toBe("not_icalendar");
    expect(empty.message).not.toMatch(/Export calendar|web page/);
  });
});
