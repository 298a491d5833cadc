// Issue 35, "Reading iCalendar" (CONTRACT §4 "The rest of RFC 5545's reading rules", §8): UNTIL in UTC is an
// instant, a DURATION's hours are exact time, names and enumerations are case-insensitive, a line may be
// folded anywhere, an unreadable RRULE is one unreadable event, and a feed's VTIMEZONE under an IANA name
// decides the nights. Each case failed before its fix.
import { describe, expect, it } from "vitest";
import { canonicalLines } from "../src/engine/canonical-lines.js";
import { diffReservations } from "../src/engine/diff.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import { rruleProblem } from "../src/engine/rrule-text.js";

const NOW = new Date("2027-01-15T12:00:00Z");
const calendar = (...lines: string[]) => ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...lines, "END:VCALENDAR", ""].join("\r\n");
const vevent = (...lines: string[]) => ["BEGIN:VEVENT", "DTSTAMP:20270101T000000Z", ...lines, "END:VEVENT"].join("\r\n");

function parse(text: string) {
  const result = parseFeed(text, { source: "other", now: NOW });
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result;
}

/** What a first sync stores: [uid, start, end, arrival, departure], the property having no zone unless given. */
function stored(text: string, timeZone: string | null = null): string[][] {
  const diff = diffReservations([], parse(text).events, { now: NOW, timeZone });
  return diff.inserts.map((row) => [row.uid, row.start, row.end, row.arrival, row.departure]).sort((a, b) => a[0]!.localeCompare(b[0]!));
}

describe("UNTIL in UTC is an instant, compared with each occurrence's instant, inclusive (RFC 5545 §3.3.10)", () => {
  it("keeps a Sydney series' last stay when Google Calendar ends it at 23:59:59 local, written in UTC", () => {
    // Mondays 15:00 in Sydney (04:00Z); UNTIL 12:59:59Z on the 25th is 23:59:59 that evening in Sydney.
    const text = calendar(vevent("UID:syd", "DTSTART;TZID=Australia/Sydney:20270104T150000", "DTEND;TZID=Australia/Sydney:20270106T100000", "RRULE:FREQ=WEEKLY;WKST=SU;UNTIL=20270125T125959Z"));
    expect(stored(text).map((row) => row[3])).toEqual(["2027-01-04", "2027-01-11", "2027-01-18", "2027-01-25"]);
  });

  it("ends a New York series at UNTIL: an occurrence after it is no stay", () => {
    // Mondays 20:00 EST (01:00Z the next day); UNTIL 23:00Z on the 18th is 18:00 in New York, before that evening.
    const text = calendar(vevent("UID:ny", "DTSTART;TZID=America/New_York:20270104T200000", "DTEND;TZID=America/New_York:20270106T100000", "RRULE:FREQ=WEEKLY;UNTIL=20270118T230000Z"));
    expect(stored(text).map((row) => row[3])).toEqual(["2027-01-04", "2027-01-11"]);
  });

  it("keeps an occurrence whose instant equals UNTIL", () => {
    // 15:00 AEDT on the 18th is 04:00Z.
    const text = calendar(vevent("UID:eq", "DTSTART;TZID=Australia/Sydney:20270104T150000", "DTEND;TZID=Australia/Sydney:20270106T100000", "RRULE:FREQ=WEEKLY;UNTIL=20270118T040000Z"));
    expect(stored(text).map((row) => row[1])).toEqual(["2027-01-04T04:00:00.000Z", "2027-01-11T04:00:00.000Z", "2027-01-18T04:00:00.000Z"]);
  });

  it("reads a floating UNTIL on the series' own wall clock, as before", () => {
    const text = calendar(vevent("UID:wall", "DTSTART;TZID=Australia/Sydney:20270104T150000", "DTEND;TZID=Australia/Sydney:20270106T100000", "RRULE:FREQ=WEEKLY;UNTIL=20270118T150000"));
    expect(stored(text)).toHaveLength(3);
  });
});

describe("a DURATION's hours are exact time, its days nominal (RFC 5545 §3.3.6)", () => {
  // Santiago's clocks go from 00:00 to 01:00 on Sunday 5 September 2027: that Saturday–Sunday day has 23 hours.
  const santiago = (duration: string) => calendar(vevent("UID:cl", "DTSTART;TZID=America/Santiago:20270904T233000", `DURATION:${duration}`, "SUMMARY:Reserved"));

  it("ends PT24H 24 hours later, an hour later on the wall clock, and keeps the second night", () => {
    // 23:30 at -04 is 03:30Z on the 5th; 24 hours on is 03:30Z on the 6th, 00:30 at -03.
    expect(stored(santiago("PT24H"))).toEqual([["cl", "2027-09-05T03:30:00.000Z", "2027-09-06T03:30:00.000Z", "2027-09-04", "2027-09-06"]]);
  });

  it("ends P1D at the same wall time the next day, 23 hours later", () => {
    expect(stored(santiago("P1D"))).toEqual([["cl", "2027-09-05T03:30:00.000Z", "2027-09-06T02:30:00.000Z", "2027-09-04", "2027-09-05"]]);
  });

  it("gives each occurrence of a series the same nominal duration (P1DT1H: a day on the wall clock, then an hour)", () => {
    const text = calendar(vevent("UID:weekly", "DTSTART;TZID=America/Santiago:20270828T233000", "DURATION:P1DT1H", "RRULE:FREQ=WEEKLY;COUNT=2"));
    expect(stored(text).map((row) => [row[1], row[2]])).toEqual([
      ["2027-08-29T03:30:00.000Z", "2027-08-30T04:30:00.000Z"],
      // 23:30 on the 4th + 1 day = 23:30 (-03) on the 5th = 02:30Z on the 6th; + 1 hour.
      ["2027-09-05T03:30:00.000Z", "2027-09-06T03:30:00.000Z"],
    ]);
  });
});

describe("names and enumerated values are case-insensitive (RFC 5545 §3.1, §3.2)", () => {
  it("reads dtstart;value=date, a lower-case TZID parameter and begin:vevent", () => {
    const text = calendar(
      ["begin:vevent", "uid:lower", "dtstart;value=date:20270310", "Dtend;Value=Date:20270312", "end:vevent"].join("\r\n"),
      vevent("UID:tz", "DTSTART;tzid=Europe/Berlin:20270320T160000", "dtend;tzid=Europe/Berlin:20270322T100000"),
    );
    expect(stored(text)).toEqual([
      ["lower", "2027-03-10", "2027-03-12", "2027-03-10", "2027-03-12"],
      ["tz", "2027-03-20T15:00:00.000Z", "2027-03-22T09:00:00.000Z", "2027-03-20", "2027-03-22"],
    ]);
    expect(parse(text).unreadable).toEqual([]);
  });

  it("expands RRULE:freq=weekly;count=2 and keeps the feed's other events", () => {
    const text = calendar(
      vevent("UID:series", "DTSTART;VALUE=DATE:20270301", "DTEND;VALUE=DATE:20270302", "RRULE:freq=weekly;count=2;byday=mo"),
      vevent("UID:other", "DTSTART;VALUE=DATE:20270310", "DTEND;VALUE=DATE:20270312"),
    );
    expect(stored(text).map((row) => row[0])).toEqual(["other", "series#2027-03-01", "series#2027-03-08"]);
  });

  it("keeps summaries, descriptions and other values exactly as written", () => {
    const text = calendar(vevent("UID:Keep-Case", "DTSTART;VALUE=DATE:20270310", "DTEND;VALUE=DATE:20270312", "summary:Reserved - Ann", "DESCRIPTION;language=en:begin:here"));
    const [event] = parse(text).events;
    expect([event!.uid, event!.summary, event!.raw["DESCRIPTION"]]).toEqual(["Keep-Case", "Reserved - Ann", "begin:here"]);
  });
});

describe("a line may be folded between any two characters (RFC 5545 §3.1)", () => {
  it("reads a fold inside a property name, a parameter name and an RRULE", () => {
    const text = calendar(
      ["BEGIN:VEVENT", "UID:folded", "DTST", " ART;VALUE=DATE:20270301", "DTEND;VAL", "\tUE=DATE:20270302", "RRULE:FREQ=WEEK", " LY;COUNT=2", "END:VEVENT"].join("\r\n"),
    );
    expect(stored(text).map((row) => [row[0], row[3], row[4]])).toEqual([
      ["folded#2027-03-01", "2027-03-01", "2027-03-02"],
      ["folded#2027-03-08", "2027-03-08", "2027-03-09"],
    ]);
  });

  it("reads a feed whose BEGIN:VCALENDAR and END:VCALENDAR are folded", () => {
    const text = calendar(vevent("UID:a", "DTSTART;VALUE=DATE:20270301", "DTEND;VALUE=DATE:20270302"))
      .replace("BEGIN:VCALENDAR", "BEGIN:VCAL\r\n ENDAR")
      .replace("END:VCALENDAR", "END:VCALEN\r\n DAR");
    expect(stored(text).map((row) => row[0])).toEqual(["a"]);
  });

  it("joins folds in LF-only feeds too, and leaves an unfolded body as it is", () => {
    expect(canonicalLines("BEGIN:VEVENT\nDTST\n ART:20270301T100000Z\nEND:VEVENT\n")).toBe("BEGIN:VEVENT\nDTSTART:20270301T100000Z\nEND:VEVENT\n");
    const plain = "BEGIN:VCALENDAR\r\nX-WR-CALNAME:Anns place\r\nDTSTART;TZID=\"Europe/Berlin\":20270301T100000\r\nEND:VCALENDAR\r\n";
    expect(canonicalLines(plain)).toBe(plain);
  });

  it("upper-cases names, parameter names and enumerated values only", () => {
    expect(canonicalLines('dtstart;tzid="(UTC+01:00) Amsterdam";value=date-time:20270301T100000\r\n')).toBe('DTSTART;TZID="(UTC+01:00) Amsterdam";VALUE=DATE-TIME:20270301T100000\r\n');
    expect(canonicalLines("rrule:freq=weekly;until=20270301t100000z\r\nx-note:freq=weekly\r\n")).toBe("RRULE:FREQ=WEEKLY;UNTIL=20270301T100000Z\r\nX-NOTE:freq=weekly\r\n");
  });
});

describe("a series whose RRULE cannot be read is one unreadable event", () => {
  it("names what cannot be read", () => {
    expect(rruleProblem("FREQ=WEEKLY;COUNT=2")).toBeNull();
    expect(rruleProblem("FREQ=MONTHLY;BYDAY=-1SU,2MO;BYMONTH=3,10;WKST=MO;X-FOO=1")).toBeNull();
    expect(rruleProblem("FREQ=SOMETIMES")).toMatch(/cannot be read/);
    expect(rruleProblem("COUNT=2")).toMatch(/no FREQ/);
    expect(rruleProblem("FREQ=DAILY;BYHOUR=24")).toMatch(/BYHOUR=24/);
    expect(rruleProblem("FREQ=DAILY;UNTIL=20270230")).toMatch(/UNTIL=20270230/);
    expect(rruleProblem("FREQ=DAILY;FREQ=WEEKLY")).toMatch(/FREQ twice/);
  });

  it("leaves that series out with an unreadable_event warning and reads the rest", () => {
    const result = parse(calendar(
      vevent("UID:bad", "DTSTART;VALUE=DATE:20270301", "DTEND;VALUE=DATE:20270302", "RRULE:FREQ=WEEKLY;BYDAY=XX"),
      vevent("UID:good", "DTSTART;VALUE=DATE:20270310", "DTEND;VALUE=DATE:20270312"),
    ));
    expect(result.events.map((event) => event.uid)).toEqual(["good"]);
    expect(result.unreadable).toEqual([{ uid: "bad", message: 'RRULE "FREQ=WEEKLY;BYDAY=XX" cannot be read ("BYDAY=XX")' }]);
  });
});

describe("a feed's VTIMEZONE under an IANA name decides the nights when the property has no zone (§4, §8)", () => {
  // São Paulo kept summer time until 2019; a feed still defining it (-02 in January) differs from IANA's -03.
  const stale = [
    "BEGIN:VTIMEZONE", "TZID:America/Sao_Paulo",
    "BEGIN:STANDARD", "DTSTART:19700215T000000", "TZOFFSETFROM:-0200", "TZOFFSETTO:-0300", "RRULE:FREQ=YEARLY;BYMONTH=2;BYDAY=3SU", "END:STANDARD",
    "BEGIN:DAYLIGHT", "DTSTART:19701101T000000", "TZOFFSETFROM:-0300", "TZOFFSETTO:-0200", "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU", "END:DAYLIGHT",
    "END:VTIMEZONE",
  ].join("\r\n");

  it("reads 00:30 on the 11th at the feed's -02 as arriving on the 11th, not IANA's 23:30 on the 10th", () => {
    const text = calendar(stale, vevent("UID:sp", "DTSTART;TZID=America/Sao_Paulo:20270111T003000", "DTEND;TZID=America/Sao_Paulo:20270113T003000"));
    expect(stored(text)).toEqual([["sp", "2027-01-11T02:30:00.000Z", "2027-01-13T02:30:00.000Z", "2027-01-11", "2027-01-13"]]);
    expect(parse(text).events[0]!.zone).toBe("-02:00");
  });

  it("keeps the IANA name where the feed's definition agrees with it", () => {
    const text = calendar(stale, vevent("UID:sp", "DTSTART;TZID=America/Sao_Paulo:20270611T003000", "DTEND;TZID=America/Sao_Paulo:20270613T003000"));
    expect(parse(text).events[0]!.zone).toBe("America/Sao_Paulo");
    expect(stored(text, "Asia/Tokyo")[0]!.slice(3)).toEqual(["2027-06-11", "2027-06-13"]);
  });
});
