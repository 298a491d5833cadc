import fc from "fast-check";
import ical, { type VEvent } from "node-ical";
import { describe, expect, it } from "vitest";
import { expandOccurrences, expansionCost } from "../src/engine/recurrence.js";

const now = new Date(Date.UTC(2031, 0, 1));

/** The one VEVENT of a calendar holding `lines`. */
function eventOf(...lines: string[]): VEvent {
  const text = ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:r", ...lines, "END:VEVENT", "END:VCALENDAR"].join("\r\n");
  const event = Object.values(ical.sync.parseICS(text)).find((c) => c?.type === "VEVENT");
  if (!event) throw new Error("no VEVENT");
  return event as VEvent;
}

const cost = (...lines: string[]) => expansionCost(eventOf(...lines), { now });
/** What every series costs before its first date. */
const SERIES = 20;

describe("expansionCost", () => {
  it("costs nothing for a single event", () => {
    expect(cost("DTSTART;VALUE=DATE:20310101")).toBe(0);
  });

  it("stays near the real count for the rules owners write", () => {
    // The window is 365 days back to 730 ahead: 1096 days, 157 weeks, 37 months, 4 years.
    expect(cost("DTSTART;VALUE=DATE:20200101", "RRULE:FREQ=DAILY")).toBe(SERIES + 1096);
    expect(cost("DTSTART;VALUE=DATE:20200104", "RRULE:FREQ=WEEKLY;BYDAY=SA,SU")).toBe(SERIES + 314);
    expect(cost("DTSTART;VALUE=DATE:20200101", "RRULE:FREQ=MONTHLY;BYMONTHDAY=1")).toBeLessThanOrEqual(SERIES + 40);
    expect(cost("DTSTART;VALUE=DATE:20200101", "RRULE:FREQ=YEARLY")).toBeLessThanOrEqual(SERIES + 4);
  });

  it("counts from DTSTART to UNTIL only, and a COUNT of an unfiltered rule as it is", () => {
    expect(cost("DTSTART;VALUE=DATE:20310101", "RRULE:FREQ=DAILY;UNTIL=20310110")).toBe(SERIES + 10);
    expect(cost("DTSTART;VALUE=DATE:19900101", "RRULE:FREQ=DAILY;COUNT=10")).toBe(SERIES + 10);
    expect(cost("DTSTART;VALUE=DATE:20400101", "RRULE:FREQ=DAILY")).toBe(SERIES); // starts after the window
  });

  it("sees the candidates a dense rule hides behind a yearly frequency or a BYSETPOS", () => {
    const everyFiveMinutes = "RRULE:FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=0,6,12,18;BYMINUTE=0,5,10,15,20,25,30,35,40,45,50,55";
    expect(cost("DTSTART:20300101T000000Z", everyFiveMinutes)).toBeGreaterThanOrEqual(3 * 365 * 4 * 12) // 2030 to 2033;
    expect(cost("DTSTART:20300101T000000Z", "RRULE:FREQ=MINUTELY;BYSETPOS=1")).toBeGreaterThan(1_000_000);
  });

  it("does not let COUNT end a rule early whose periods can be empty (a filter, an ordinal weekday)", () => {
    // Hourly, but only in hours of a fifth Monday: most periods yield nothing, so COUNT=1 can take 26,000 hours.
    expect(cost("DTSTART:20300101T000100Z", "RRULE:FREQ=HOURLY;BYDAY=5MO;COUNT=1")).toBeGreaterThan(26_000);
    expect(cost("DTSTART:20300101T000100Z", "RRULE:FREQ=DAILY;BYDAY=MO;COUNT=1")).toBeGreaterThan(1000);
    expect(cost("DTSTART:20300101T000100Z", "RRULE:FREQ=DAILY;BYHOUR=9,17;COUNT=1")).toBe(SERIES + 2);
  });

  it("charges an all-day series for its EXDATEs, which node-ical checks one by one for every date", () => {
    const exdates = Array.from({ length: 160 }, (_, i) => new Date(Date.UTC(2030, 0, 1 + i)).toISOString().slice(0, 10).replaceAll("-", ""));
    const plain = cost("DTSTART;VALUE=DATE:20200101", "RRULE:FREQ=DAILY");
    const excluded = cost("DTSTART;VALUE=DATE:20200101", "RRULE:FREQ=DAILY", `EXDATE;VALUE=DATE:${exdates.join(",")}`);
    expect(excluded - SERIES).toBe((plain - SERIES) * 11); // 1 + 160/16
  });

  it("is never below the number of occurrences the expansion returns", () => {
    const parts = fc.record({
      freq: fc.constantFrom("YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY"),
      interval: fc.integer({ min: 1, max: 4 }),
      count: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
      byMonth: fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { maxLength: 3 }),
      byMonthDay: fc.uniqueArray(fc.integer({ min: 1, max: 31 }), { maxLength: 3 }),
      byYearDay: fc.uniqueArray(fc.integer({ min: 1, max: 366 }), { maxLength: 2 }),
      byDay: fc.uniqueArray(fc.constantFrom("MO", "TU", "WE", "TH", "FR", "SA", "SU", "1MO", "-1FR"), { maxLength: 3 }),
      byHour: fc.uniqueArray(fc.integer({ min: 0, max: 23 }), { maxLength: 2 }),
      byMinute: fc.uniqueArray(fc.integer({ min: 0, max: 59 }), { maxLength: 2 }),
      bySetPos: fc.option(fc.constantFrom(1, -1), { nil: undefined }),
      start: fc.integer({ min: 0, max: 3000 }),
    });
    fc.assert(
      fc.property(parts, (p) => {
        const rule = [
          `FREQ=${p.freq}`,
          `INTERVAL=${p.interval}`,
          p.count === undefined ? "" : `COUNT=${p.count}`,
          p.byMonth.length ? `BYMONTH=${p.byMonth.join(",")}` : "",
          p.byMonthDay.length ? `BYMONTHDAY=${p.byMonthDay.join(",")}` : "",
          p.byDay.length ? `BYDAY=${p.byDay.join(",")}` : "",
          p.byYearDay.length ? `BYYEARDAY=${p.byYearDay.join(",")}` : "",
          p.byHour.length ? `BYHOUR=${p.byHour.join(",")}` : "",
          p.byMinute.length ? `BYMINUTE=${p.byMinute.join(",")}` : "",
          p.bySetPos === undefined ? "" : `BYSETPOS=${p.bySetPos}`,
        ].filter(Boolean).join(";");
        const start = new Date(Date.UTC(2028, 0, 1) + p.start * 86_400_000).toISOString().replace(/[-:]|\.\d{3}/g, "");
        const event = eventOf(`DTSTART:${start}`, `RRULE:${rule}`);
        const bound = expansionCost(event, { now });
        fc.pre(bound <= 3000); // keep each run fast; denser rules are refused before expanding anyway
        expect(expandOccurrences(event, { now }).length).toBeLessThanOrEqual(bound);
      }),
      { numRuns: 300 },
    );
  });
});
