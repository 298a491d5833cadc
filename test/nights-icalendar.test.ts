// Reading iCalendar exactly (CONTRACT §4, issue 24), case by case; the differential test covers the
// combinations. vitest.config.ts runs this file under three machine zones: none may change an instant.
import { describe, expect, it } from "vitest";
import type { FeedEvent } from "../src/engine/model.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import { vtimezone } from "./helpers/vtimezones.js";

const now = new Date("2027-01-15T12:00:00Z");
const feed = (header: string[], ...events: string[][]) =>
  ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calsync//tests//EN", ...header,
   ...events.flatMap((lines) => ["BEGIN:VEVENT", "DTSTAMP:20270101T000000Z", "SUMMARY:Reserved", ...lines, "END:VEVENT"]), "END:VCALENDAR", ""].join("\r\n");

function events(text: string): FeedEvent[] {
  const result = parseFeed(text, { source: "other", now });
  if (!result.ok) throw new Error(result.error.message);
  return result.events;
}
const times = (text: string) => events(text).map((e) => [e.uid, e.start, e.end]);

describe("a TZID a VTIMEZONE of the feed defines", () => {
  it("is read with that definition whatever its name: a fixed -03:30", () => {
    const text = feed(vtimezone("Fixed -0330", "Custom Fixed -0330"), ["UID:a", 'DTSTART;TZID="Custom Fixed -0330":20270424T210000', 'DTEND;TZID="Custom Fixed -0330":20270427T010000']);
    expect(events(text)).toMatchObject([{ start: "2027-04-25T00:30:00.000Z", end: "2027-04-27T04:30:00.000Z", zone: "-03:30" }]);
  });

  it("follows the definition's daylight saving time, in winter and in summer", () => {
    const text = feed(vtimezone("Europe/Berlin", "Customized Time Zone"),
      ["UID:w", 'DTSTART;TZID="Customized Time Zone":20270210T150000', 'DTEND;TZID="Customized Time Zone":20270212T100000'],
      ["UID:s", 'DTSTART;TZID="Customized Time Zone":20270710T150000', 'DTEND;TZID="Customized Time Zone":20270712T100000']);
    expect(times(text)).toEqual([
      ["w", "2027-02-10T14:00:00.000Z", "2027-02-12T09:00:00.000Z"],
      ["s", "2027-07-10T13:00:00.000Z", "2027-07-12T08:00:00.000Z"],
    ]);
  });

  it("wins over the IANA zone of the same name", () => {
    // A feed that says its "America/New_York" is Berlin is read as Berlin: the definition is what counts.
    const text = feed(vtimezone("Europe/Berlin", "America/New_York"), ["UID:a", "DTSTART;TZID=America/New_York:20270710T150000", "DTEND;TZID=America/New_York:20270712T100000"]);
    expect(times(text)).toEqual([["a", "2027-07-10T13:00:00.000Z", "2027-07-12T08:00:00.000Z"]]);
  });
});

describe("Exchange's unquoted tzone:// TZID", () => {
  it("is read with its VTIMEZONE, the colon of its scheme kept in the name", () => {
    const text = feed(vtimezone("Europe/Berlin", "tzone://Microsoft/Custom"), ["UID:a", "DTSTART;TZID=tzone://Microsoft/Custom:20270710T150000", "DTEND;TZID=tzone://Microsoft/Custom:20270712T100000"]);
    expect(times(text)).toEqual([["a", "2027-07-10T13:00:00.000Z", "2027-07-12T08:00:00.000Z"]]);
  });
});

describe("a TZID without VTIMEZONE", () => {
  it("maps a Windows name to its IANA zone", () => {
    const text = feed([], ["UID:a", 'DTSTART;TZID="W. Europe Standard Time":20270710T150000', 'DTEND;TZID="W. Europe Standard Time":20270712T100000']);
    expect(events(text)).toMatchObject([{ start: "2027-07-10T13:00:00.000Z", zone: "Europe/Berlin" }]);
  });

  it("reads an unknown name, or Outlook's invented one, in X-WR-TIMEZONE and never in the machine's zone", () => {
    for (const tzid of ["Mars/Olympus", "Customized Time Zone"]) {
      const text = feed(["X-WR-TIMEZONE:Asia/Kolkata"], ["UID:a", `DTSTART;TZID="${tzid}":20270710T150000`, `DTEND;TZID="${tzid}":20270712T100000`]);
      expect(events(text)).toMatchObject([{ start: "2027-07-10T09:30:00.000Z", zone: "Asia/Kolkata" }]);
    }
  });
});

describe("the hours the clocks change", () => {
  it("read the repeated hour as its first occurrence", () => {
    const text = feed([], ["UID:a", "DTSTART;TZID=Europe/Berlin:20271031T023000", "DTEND;TZID=Europe/Berlin:20271102T100000"]);
    expect(times(text)).toEqual([["a", "2027-10-31T00:30:00.000Z", "2027-11-02T09:00:00.000Z"]]);
  });

  it("read a time in the gap with the offset before the gap, in an IANA zone and in a VTIMEZONE", () => {
    const iana = feed([], ["UID:a", "DTSTART;TZID=Europe/Berlin:20270328T023000", "DTEND;TZID=Europe/Berlin:20270330T100000"]);
    const defined = feed(vtimezone("Europe/Berlin", "Berlin (custom)"), ["UID:a", 'DTSTART;TZID="Berlin (custom)":20270328T023000', 'DTEND;TZID="Berlin (custom)":20270330T100000']);
    expect(times(iana)).toEqual([["a", "2027-03-28T01:30:00.000Z", "2027-03-30T08:00:00.000Z"]]);
    expect(times(defined)).toEqual(times(iana));
  });

  it("keep a weekly series starting in the gap at its written time on the other weeks", () => {
    const text = feed([], ["UID:a", "DTSTART;TZID=Europe/Berlin:20270328T023000", "DTEND;TZID=Europe/Berlin:20270328T233000", "RRULE:FREQ=WEEKLY;COUNT=2"]);
    expect(events(text).map((e) => e.start)).toEqual(["2027-03-28T01:30:00.000Z", "2027-04-04T00:30:00.000Z"]);
  });

  it("read a floating time on the machine's own change night as written (X-WR-TIMEZONE else UTC)", () => {
    const text = feed([], ["UID:a", "DTSTART:20270314T023000", "DTEND:20270316T100000"], ["UID:b", "DTSTART:20270926T023000", "DTEND:20270928T100000"]);
    expect(times(text)).toEqual([
      ["a", "2027-03-14T02:30:00.000Z", "2027-03-16T10:00:00.000Z"],
      ["b", "2027-09-26T02:30:00.000Z", "2027-09-28T10:00:00.000Z"],
    ]);
  });
});

describe("RDATE", () => {
  it("joins a yearly series: all-day dates", () => {
    const text = feed([], ["UID:y", "DTSTART;VALUE=DATE:20270101", "DTEND;VALUE=DATE:20270102", "RRULE:FREQ=YEARLY;COUNT=2", "RDATE;VALUE=DATE:20270615"]);
    expect(events(text).map((e) => [e.uid, e.start, e.end])).toEqual([
      ["y#2027-01-01", "2027-01-01", "2027-01-02"],
      ["y#2028-01-01", "2028-01-01", "2028-01-02"],
      ["y#2027-06-15", "2027-06-15", "2027-06-16"],
    ]);
  });

  it("makes a series without RRULE: DTSTART and each date-time, less EXDATE, with RECURRENCE-ID overrides", () => {
    const text = feed([],
      ["UID:r", "DTSTART;TZID=Europe/Berlin:20270301T160000", "DTEND;TZID=Europe/Berlin:20270303T100000",
       "RDATE;TZID=Europe/Berlin:20270401T160000,20270501T160000", "RDATE:20270601T140000Z", "EXDATE;TZID=Europe/Berlin:20270501T160000"],
      ["UID:r", "RECURRENCE-ID;TZID=Europe/Berlin:20270401T160000", "DTSTART;TZID=Europe/Berlin:20270402T160000", "DTEND;TZID=Europe/Berlin:20270405T100000"]);
    expect(times(text).sort()).toEqual([
      ["r#2027-03-01T15:00:00.000Z", "2027-03-01T15:00:00.000Z", "2027-03-03T09:00:00.000Z"],
      ["r#2027-04-01T14:00:00.000Z", "2027-04-02T14:00:00.000Z", "2027-04-05T08:00:00.000Z"],
      ["r#2027-06-01T14:00:00.000Z", "2027-06-01T14:00:00.000Z", "2027-06-03T08:00:00.000Z"],
    ]);
  });

  it("counts towards the expansion limit: a feed beyond it fails rather than hanging", () => {
    const dates = Array.from({ length: 50_001 }, (_, i) => new Date(Date.UTC(2027, 0, 1) + i * 60_000).toISOString().replace(/[-:]/g, "").slice(0, 15) + "Z");
    const result = parseFeed(feed([], ["UID:many", "DTSTART:20270101T000000Z", "DTEND:20270101T010000Z", `RDATE:${dates.join(",")}`]), { source: "other", now });
    expect(result).toMatchObject({ ok: false, error: { code: "parse_error" } });
  });
});

describe("RDATE;VALUE=PERIOD", () => {
  const berlin = ["DTSTART;TZID=Europe/Berlin:20270301T160000", "DTEND;TZID=Europe/Berlin:20270303T100000"];

  it("joins the series with its own end: start/end in a TZID, in UTC, and floating", () => {
    const text = feed([],
      ["UID:p", ...berlin, "RDATE;VALUE=PERIOD;TZID=Europe/Berlin:20270401T160000/20270408T100000",
       "RDATE;VALUE=PERIOD:20270601T140000Z/20270602T090000Z,20270701T150000/20270704T110000"]);
    expect(times(text).sort()).toEqual([
      ["p#2027-03-01T15:00:00.000Z", "2027-03-01T15:00:00.000Z", "2027-03-03T09:00:00.000Z"],
      ["p#2027-04-01T14:00:00.000Z", "2027-04-01T14:00:00.000Z", "2027-04-08T08:00:00.000Z"],
      ["p#2027-06-01T14:00:00.000Z", "2027-06-01T14:00:00.000Z", "2027-06-02T09:00:00.000Z"],
      // No TZID, no Z: floating, read in X-WR-TIMEZONE, else (here) UTC, as any floating date-time is.
      ["p#2027-07-01T15:00:00.000Z", "2027-07-01T15:00:00.000Z", "2027-07-04T11:00:00.000Z"],
    ]);
  });

  it("reads start/duration: days keep the wall time across a clock change, hours are exact", () => {
    // Berlin moves its clocks forward on 28 March 2027: three days after 16:00 CET is 16:00 CEST.
    const text = feed([],
      ["UID:d", ...berlin, "RRULE:FREQ=YEARLY;COUNT=1",
       "RDATE;VALUE=PERIOD;TZID=Europe/Berlin:20270326T160000/P3D,20270327T160000/PT72H,20270501T160000/P1W",
       "RDATE;VALUE=PERIOD:20270601T140000Z/P1DT2H30M"]);
    expect(times(text).sort()).toEqual([
      ["d#2027-03-01T15:00:00.000Z", "2027-03-01T15:00:00.000Z", "2027-03-03T09:00:00.000Z"],
      ["d#2027-03-26T15:00:00.000Z", "2027-03-26T15:00:00.000Z", "2027-03-29T14:00:00.000Z"],
      ["d#2027-03-27T15:00:00.000Z", "2027-03-27T15:00:00.000Z", "2027-03-30T15:00:00.000Z"],
      ["d#2027-05-01T14:00:00.000Z", "2027-05-01T14:00:00.000Z", "2027-05-08T14:00:00.000Z"],
      ["d#2027-06-01T14:00:00.000Z", "2027-06-01T14:00:00.000Z", "2027-06-02T16:30:00.000Z"],
    ]);
  });

  it("is removed by EXDATE and replaced by a RECURRENCE-ID override like any other date", () => {
    const text = feed([],
      ["UID:x", ...berlin, "RDATE;VALUE=PERIOD;TZID=Europe/Berlin:20270401T160000/20270408T100000,20270501T160000/20270510T100000",
       "EXDATE;TZID=Europe/Berlin:20270501T160000"],
      ["UID:x", "RECURRENCE-ID;TZID=Europe/Berlin:20270401T160000", "DTSTART;TZID=Europe/Berlin:20270402T160000", "DTEND;TZID=Europe/Berlin:20270404T100000"]);
    expect(times(text).sort()).toEqual([
      ["x#2027-03-01T15:00:00.000Z", "2027-03-01T15:00:00.000Z", "2027-03-03T09:00:00.000Z"],
      ["x#2027-04-01T14:00:00.000Z", "2027-04-02T14:00:00.000Z", "2027-04-04T08:00:00.000Z"],
    ]);
  });

  it("leaves out a period it cannot read or that ends before it starts, keeping the rest of the series", () => {
    const text = feed([],
      ["UID:b", ...berlin, "RDATE;VALUE=PERIOD;TZID=Europe/Berlin:20270401T160000/20270301T100000,20270402T160000/P,20270403T160000/soon,20270404T160000",
       "RDATE;VALUE=PERIOD;TZID=Europe/Berlin:20270405T160000/PT0S,20270406T160000/20270407T100000/P1D,20270501T160000/P2D"]);
    expect(times(text).sort()).toEqual([
      ["b#2027-03-01T15:00:00.000Z", "2027-03-01T15:00:00.000Z", "2027-03-03T09:00:00.000Z"],
      ["b#2027-05-01T14:00:00.000Z", "2027-05-01T14:00:00.000Z", "2027-05-03T14:00:00.000Z"],
    ]);
  });

  it("names a day in an all-day series, which keeps its own length", () => {
    const text = feed([], ["UID:a", "DTSTART;VALUE=DATE:20270301", "DTEND;VALUE=DATE:20270303", "RDATE;VALUE=PERIOD:20270401T160000Z/20270410T100000Z"]);
    expect(times(text)).toEqual([["a#2027-03-01", "2027-03-01", "2027-03-03"], ["a#2027-04-01", "2027-04-01", "2027-04-03"]]);
  });
});

describe("a feed's own X-CALSYNC-* lines", () => {
  it("are ignored: they cannot move an event", () => {
    const text = feed([], ["UID:a", "DTSTART;TZID=Europe/Berlin:20270710T150000", "X-CALSYNC-ZONE:z9", "X-CALSYNC-DTEND:2030-01-01T00:00:00.000Z", "X-CALSYNC-RDATE:20270801T150000Z"]);
    expect(times(text)).toEqual([["a", "2027-07-10T13:00:00.000Z", "2027-07-10T13:00:00.000Z"]]);
  });
});
