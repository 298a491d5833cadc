// The pure decisions of adding a calendar (CONTRACT §6): duplicates, the same feed elsewhere, calsync's own feeds.
import { describe, expect, it } from "vitest";
import { checkCalendarUrl, feedTokenCandidate, type ExistingCalendar } from "../src/engine/calendar-checks.js";

const LOFT = "prp_loft";
const BARN = "prp_barn";
const calendars: ExistingCalendar[] = [
  { id: "cal_air", propertyId: LOFT, propertyName: "Sea View Loft", url: "https://www.airbnb.com/calendar/ical/1.ics?s=abc&t=1" },
  { id: "cal_bkg", propertyId: BARN, propertyName: "Barn", url: "https://admin.booking.com/hotel/hoteladmin/ical.html?t=xyz" },
];

describe("checkCalendarUrl", () => {
  it("refuses a feed the property already has, naming that calendar", () => {
    const verdict = checkCalendarUrl({ url: "webcal://WWW.airbnb.com/calendar/ical/1.ics/?t=1&s=abc", propertyId: LOFT, ownerCalendars: calendars });
    expect(verdict).toMatchObject({ ok: false, code: "duplicate_calendar", calendarId: "cal_air" });
    expect(verdict.ok || verdict.message).toMatch(/already calendar cal_air of "Sea View Loft"/);
  });

  it("adds a feed another property of the owner has, with a warning naming that calendar", () => {
    const verdict = checkCalendarUrl({ url: "https://admin.booking.com/hotel/hoteladmin/ical.html?t=xyz", propertyId: LOFT, ownerCalendars: calendars });
    expect(verdict).toEqual({ ok: true, warnings: [expect.stringMatching(/already calendar cal_bkg of "Barn"/)] });
  });

  it("adds a new feed without warnings", () => {
    const verdict = checkCalendarUrl({ url: "https://www.airbnb.com/calendar/ical/2.ics?s=abc&t=1", propertyId: LOFT, ownerCalendars: calendars });
    expect(verdict).toEqual({ ok: true, warnings: [] });
  });

  it("refuses an outbound feed of calsync, saying why, and names another owner's property never", () => {
    const url = "https://cal.example.com/ical/Abc123.ics";
    const own = checkCalendarUrl({ url, propertyId: LOFT, ownerCalendars: [], outboundFeed: { propertyId: LOFT, propertyName: "Sea View Loft", sameOwner: true } });
    expect(own).toMatchObject({ ok: false, code: "outbound_feed" });
    expect(own.ok || own.message).toMatch(/this property's own outbound feed .*back into itself/);
    const sibling = checkCalendarUrl({ url, propertyId: LOFT, ownerCalendars: [], outboundFeed: { propertyId: BARN, propertyName: "Barn", sameOwner: true } });
    expect(sibling.ok || sibling.message).toMatch(/outbound feed of your property "Barn"/);
    const foreign = checkCalendarUrl({ url, propertyId: LOFT, ownerCalendars: [], outboundFeed: { propertyId: "prp_x", propertyName: "Secret Villa", sameOwner: false } });
    expect(foreign.ok || foreign.message).not.toMatch(/Secret Villa/);
    expect(foreign).toMatchObject({ ok: false, code: "outbound_feed" });
  });
});

describe("feedTokenCandidate", () => {
  it.each([
    ["http://localhost:8787/ical/AbC123xyz.ics", "AbC123xyz"],
    ["webcal://CAL.example.com/ical/AbC123xyz.ics?exclude=airbnb", "AbC123xyz"],
    ["https://example.com/calsync/ical/AbC123xyz.ics/", "AbC123xyz"],
    ["https://example.com/ical/%41bC123xyz.ics", "AbC123xyz"],
  ])("finds the token of %s", (url, token) => {
    expect(feedTokenCandidate(url)).toBe(token);
  });

  it.each(["https://example.com/ical/", "https://example.com/ical/a-b.ics", "https://example.com/calendar.html", "not a url"])(
    "finds none in %s",
    (url) => {
      expect(feedTokenCandidate(url)).toBeUndefined();
    },
  );
});
