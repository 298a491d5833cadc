import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classifyKind, detectSource, extractDetails } from "../src/engine/channels.js";
import type { FeedEvent } from "../src/engine/model.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import type { CalendarSource } from "../src/types.js";

/** Parses a channel fixture as of 1 January 2031 (the fixtures' dates are in 2031, so they never go stale). */
function fixture(name: string, source: CalendarSource): FeedEvent[] {
  const text = readFileSync(new URL(`./fixtures/${name}.ics`, import.meta.url), "utf8");
  const result = parseFeed(text, { source, now: new Date(2031, 0, 1) });
  if (!result.ok) throw new Error(`${name}: ${result.error.message}`);
  return result.events;
}
const brief = (events: FeedEvent[]) => events.map((e) => [e.kind, e.start, e.end, e.summary, e.cancelled]);

describe("detectSource", () => {
  it.each([
    ["https://www.airbnb.com/calendar/ical/12345.ics?s=abcdef", "airbnb"],
    ["https://www.airbnb.co.uk/calendar/ical/12345.ics?s=abcdef", "airbnb"],
    ["webcal://airbnb.fr/calendar/ical/1.ics", "airbnb"],
    ["https://admin.booking.com/hotel/hoteladmin/ical.html?t=secret", "booking"],
    ["https://ical.booking.com/v1/export?t=secret", "booking"],
    ["http://www.vrbo.com/icalendar/abc.ics", "vrbo"],
    ["https://www.homeaway.co.uk/icalendar/abc.ics", "vrbo"],
    ["https://www.abritel.fr/icalendar/abc.ics", "vrbo"],
    ["https://www.fewo-direkt.de/icalendar/abc.ics", "vrbo"],
    ["https://www.stayz.com.au/icalendar/abc.ics", "vrbo"],
    ["https://www.bookabach.co.nz/icalendar/abc.ics", "vrbo"],
    ["https://apps.expediapartnercentral.com/ical/1.ics", "expedia"],
    ["https://www.expedia.com/ical/1.ics", "expedia"],
    ["https://calendar.google.com/calendar/ical/x%40group.calendar.google.com/private-abc/basic.ics", "google"],
    ["https://www.tripadvisor.com/Rentals/ical/1.ics", "tripadvisor"],
    ["https://www.flipkey.com/ical/1.ics", "tripadvisor"],
    ["https://www.holidaylettings.co.uk/ical/1.ics", "tripadvisor"],
    ["https://ycs.agoda.com/ical/1.ics", "agoda"],
    ["https://example.com/airbnb.ics", "other"],
    ["https://notairbnb.com/x.ics", "other"],
    ["https://airbnb.evil-domain.example/x.ics", "other"],
    ["not a url at all", "other"],
    ["", "other"],
  ] as const)("%s → %s", (url, source) => {
    expect(detectSource(url)).toBe(source);
  });
});

describe("classifyKind", () => {
  it.each([
    ["airbnb", "Reserved", "booking"],
    ["airbnb", "Airbnb (Not available)", "block"],
    ["airbnb", "Not available", "block"],
    ["airbnb", "Jane Doe (HMABC12345)", "booking"],
    ["booking", "CLOSED - Not available", "booking"],
    ["booking", "CLOSED - Jane Doe", "booking"],
    ["booking", "Blocked", "block"],
    ["vrbo", "Reserved - Jane Doe", "booking"],
    ["vrbo", "Blocked", "block"],
    ["expedia", "Not available", "block"],
    ["google", "Family weekend", "block"],
    ["google", "Reserved for friends", "booking"],
    ["tripadvisor", "Unavailable", "block"],
    ["agoda", "Closed", "block"],
    ["other", "Owner block", "block"],
    ["other", "Owner", "block"],
    ["vrbo", "Owner stay", "block"],
    ["other", "Owner's cousin Jim", "booking"],
    ["other", "Smith family", "booking"],
  ] as const)("%s: %s → %s", (source, summary, kind) => {
    expect(classifyKind(source, summary)).toBe(kind);
  });
});

describe("extractDetails", () => {
  it("takes the reservation URL, code and phone digits from an Airbnb description", () => {
    const description =
      "Reservation URL: https://www.airbnb.com/hosting/reservations/details/HMABC12345\nPhone Number (Last 4 Digits): 1234";
    expect(extractDetails("airbnb", "Reserved", description)).toEqual({
      reservationUrl: "https://www.airbnb.com/hosting/reservations/details/HMABC12345",
      reservationCode: "HMABC12345",
      phoneLast4: "1234",
      description,
    });
  });

  it("takes the guest name from a Vrbo summary", () => {
    expect(extractDetails("vrbo", "Reserved - Jane Doe")).toEqual({ guestName: "Jane Doe" });
  });

  it("takes the guest name from an older Booking.com summary, but not from 'Not available'", () => {
    expect(extractDetails("booking", "CLOSED - Jane Doe")).toEqual({ guestName: "Jane Doe" });
    expect(extractDetails("booking", "CLOSED - Not available")).toEqual({});
  });

  it("reads an older Airbnb summary naming the guest and the code", () => {
    expect(extractDetails("airbnb", "Jane Doe (HMABC12345)")).toEqual({ guestName: "Jane Doe", reservationCode: "HMABC12345" });
  });

  it("takes the guest name from a Tripadvisor summary and the booking number from an Agoda one", () => {
    expect(extractDetails("tripadvisor", "Tripadvisor Booking: Ana Lima")).toEqual({ guestName: "Ana Lima" });
    expect(extractDetails("agoda", "Agoda Booking 638291745")).toEqual({ reservationCode: "638291745" });
  });

  it("uses the event's URL as the reservation URL when the description has none", () => {
    expect(extractDetails("vrbo", "Reserved - Jane Doe", undefined, "https://www.vrbo.com/rm/reservation/HA-7F3K2Q")).toEqual({
      guestName: "Jane Doe",
      reservationUrl: "https://www.vrbo.com/rm/reservation/HA-7F3K2Q",
    });
    expect(extractDetails("other", "x", undefined, "javascript:alert(1)")).toEqual({});
  });

  it("keeps at most 1000 characters of a description, trimmed", () => {
    const details = extractDetails("other", "x", `  ${"a".repeat(5000)}  `);
    expect(details.description).toBe("a".repeat(1000));
  });
});

describe("channel fixtures", () => {
  it("airbnb: two stays with their codes and two blocks", () => {
    const events = fixture("airbnb", "airbnb");
    expect(brief(events)).toEqual([
      ["booking", "2031-03-10", "2031-03-15", "Reserved", false],
      ["booking", "2031-04-02", "2031-04-06", "Reserved", false],
      ["block", "2031-04-20", "2031-04-22", "Airbnb (Not available)", false],
      ["block", "2031-12-01", "2032-06-01", "Airbnb (Not available)", false],
    ]);
    expect(events[0]?.details).toMatchObject({ reservationCode: "HMABC12345", phoneLast4: "1234" });
    expect(events[1]?.details).toMatchObject({ reservationCode: "HMXYZ98765", phoneLast4: "5678" });
    expect(events[0]?.uid).toBe("1418fb94e984-2d3c8e6c5a7d1c3a4f8a8f7e6c0e1b2a@airbnb.com");
    expect(events[0]?.raw).toMatchObject({ UID: events[0]?.uid, SUMMARY: "Reserved", DTSTAMP: "2031-01-01T08:15:00.000Z" });
  });

  it("booking: every CLOSED - Not available night is a booking", () => {
    expect(brief(fixture("booking", "booking"))).toEqual([
      ["booking", "2031-03-05", "2031-03-08", "CLOSED - Not available", false],
      ["booking", "2031-03-12", "2031-03-19", "CLOSED - Not available", false],
      ["booking", "2031-04-01", "2031-04-02", "CLOSED - Not available", false],
    ]);
  });

  it("vrbo: guest names from the summary, and a block", () => {
    const events = fixture("vrbo", "vrbo");
    expect(brief(events)).toEqual([
      ["booking", "2031-05-01", "2031-05-07", "Reserved - Jane Doe", false],
      ["booking", "2031-06-10", "2031-06-14", "Reserved - Kenji Watanabe", false],
      ["block", "2031-07-01", "2031-07-03", "Blocked", false],
    ]);
    expect(events.map((e) => e.details.guestName)).toEqual(["Jane Doe", "Kenji Watanabe", undefined]);
  });

  it("expedia: a booking, a block and a cancelled booking", () => {
    expect(brief(fixture("expedia", "expedia"))).toEqual([
      ["booking", "2031-08-01", "2031-08-05", "Reserved", false],
      ["block", "2031-08-20", "2031-08-22", "Not available", false],
      ["booking", "2031-09-01", "2031-09-04", "Reserved", true],
    ]);
  });

  it("google: weekly weekend blocks without the excluded date, the moved weekend, a timed Paris event", () => {
    const events = fixture("google", "google");
    const series = "5qk0v1mh3d8r2j6t9p4n7c0b1a@google.com";
    expect(events.map((e) => [e.uid, e.kind, e.start, e.end, e.summary])).toEqual([
      [`${series}#2031-01-04`, "block", "2031-01-04", "2031-01-06", "Family weekend"],
      [`${series}#2031-01-18`, "block", "2031-01-18", "2031-01-20", "Family weekend"],
      [`${series}#2031-01-25`, "block", "2031-01-24", "2031-01-27", "Family long weekend"],
      [`${series}#2031-02-01`, "block", "2031-02-01", "2031-02-03", "Family weekend"],
      [`${series}#2031-02-08`, "block", "2031-02-08", "2031-02-10", "Family weekend"],
      // 15:00 in Paris in July (CEST, UTC+2) is 13:00 UTC
      ["2m9x8c7v6b5n4m3l2k1j0h9g8f@google.com", "block", "2031-07-14T13:00:00.000Z", "2031-07-14T16:00:00.000Z", "Plumber visit"],
      ["7h6g5f4d3s2a1p0o9i8u7y6t5r@google.com", "booking", "2031-08-15", "2031-08-18", "Reserved for friends (direct booking)"],
    ]);
  });

  it("tripadvisor: a booking and an unavailable block", () => {
    expect(brief(fixture("tripadvisor", "tripadvisor"))).toEqual([
      ["booking", "2031-10-02", "2031-10-09", "Booked", false],
      ["block", "2031-11-01", "2031-11-05", "Unavailable", false],
    ]);
  });

  it("agoda: a booking and a closed period", () => {
    expect(brief(fixture("agoda", "agoda"))).toEqual([
      ["booking", "2031-12-01", "2031-12-04", "Agoda Booking 638291745", false],
      ["block", "2031-12-20", "2031-12-27", "Closed", false],
    ]);
  });
});
