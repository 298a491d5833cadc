// The strict date reader: a DATE or DATE-TIME is read only when it is a real calendar date and time.
import { describe, expect, it } from "vitest";
import { icalDateProblem } from "../src/engine/strict-date.js";

describe("icalDateProblem", () => {
  it.each([
    ["20261223", "a DATE"],
    ["20261223T150000", "a floating DATE-TIME"],
    ["20261223T150000Z", "a UTC DATE-TIME"],
    ["20280229", "29 February of a leap year"],
    ["20000229", "29 February of a year divisible by 400"],
    ["20261231T235959Z", "the last second of a year"],
    ["20260101T000000", "midnight"],
    ["20260430", "the 30th of a 30-day month"],
  ])("reads %s (%s)", (value) => {
    expect(icalDateProblem(value)).toBeNull();
  });

  it.each([
    ["20271340", /no month 13/],
    ["20270230", /no day 30/],
    ["20270229", /no day 29/],
    ["21000229", /no day 29/],
    ["20260431", /no day 31/],
    ["20260100", /no day 0/],
    ["20260001", /no month 0/],
    ["2026XX01", /not a date/],
    ["tomorrow", /not a date/],
    ["", /not a date/],
    ["2026-12-23", /not a date/],
    ["2026-12-23T15:00:00Z", /not a date/],
    ["20261223T1500Z", /not a date/],
    ["20261223t150000z", /not a date/],
    [" 20261223", /not a date/],
    ["20261223 ", /not a date/],
    ["+20261223", /not a date/],
    ["20261223T150000Z/PT1H", /not a date/],
    ["20271301T150000Z", /no month 13/],
    ["20270230T150000", /no day 30/],
    ["20261223T240000Z", /not a real time/],
    ["20261223T156000Z", /not a real time/],
    ["20261231T235960Z", /not a real time/],
  ])("refuses %j", (value, reason) => {
    expect(icalDateProblem(value)).toMatch(reason);
  });

  it("quotes the value back, cut short when long", () => {
    expect(icalDateProblem("20270230")).toBe('"20270230" is not a real date (no day 30 in that month)');
    expect(icalDateProblem("x".repeat(500))?.length).toBeLessThan(80);
  });
});
