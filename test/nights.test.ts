// A stay's nights (CONTRACT §8): all-day dates as written, timed stays on the property's wall clock,
// else the event's own zone, else UTC. vitest.config.ts runs this file three times: on this
// machine's zone, and in workers under TZ=Pacific/Auckland and TZ=America/Los_Angeles; the answers
// must be the same every time.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDays, stayNights, todayAt, type NightZones } from "../src/engine/nights.js";
import { canonicalTimeZone } from "../src/engine/time-zones.js";

interface Row {
  name: string;
  start: string;
  end: string;
  zones: NightZones;
  nights: [arrival: string, departure: string];
}

// Instants are written in UTC; the comment says the wall clock they are at the place.
const TABLE: Row[] = [
  {
    name: "Los Angeles: 16:00 on 10 Dec → 10:00 on 13 Dec (PST, UTC−8), the issue's example",
    start: "2026-12-11T00:00:00.000Z",
    end: "2026-12-13T18:00:00.000Z",
    zones: { property: "America/Los_Angeles" },
    nights: ["2026-12-10", "2026-12-13"],
  },
  {
    name: "Los Angeles, read in UTC when nothing says where it is (what calsync did before)",
    start: "2026-12-11T00:00:00.000Z",
    end: "2026-12-13T18:00:00.000Z",
    zones: {},
    nights: ["2026-12-11", "2026-12-13"],
  },
  {
    name: "Los Angeles by the event's own TZID when the property has no zone",
    start: "2026-12-11T00:00:00.000Z",
    end: "2026-12-13T18:00:00.000Z",
    zones: { event: "America/Los_Angeles" },
    nights: ["2026-12-10", "2026-12-13"],
  },
  {
    name: "Auckland: 15:00 on 20 Dec → 10:00 on 22 Dec (NZDT, UTC+13), the issue's second example",
    start: "2026-12-20T02:00:00.000Z",
    end: "2026-12-21T21:00:00.000Z",
    zones: { property: "Pacific/Auckland" },
    nights: ["2026-12-20", "2026-12-22"],
  },
  {
    name: "Auckland: the property's zone wins over a feed written in UTC",
    start: "2026-12-20T02:00:00.000Z",
    end: "2026-12-21T21:00:00.000Z",
    zones: { property: "Pacific/Auckland", event: "UTC" },
    nights: ["2026-12-20", "2026-12-22"],
  },
  {
    name: "Lisbon: 00:30 on 25 Oct (WEST, UTC+1) → 10:00 on 27 Oct (WET, UTC+0), across the October change",
    start: "2026-10-24T23:30:00.000Z",
    end: "2026-10-27T10:00:00.000Z",
    zones: { property: "Europe/Lisbon" },
    nights: ["2026-10-25", "2026-10-27"],
  },
  {
    name: "Lisbon: 16:00 on 24 Oct (WEST) → 00:30 on 26 Oct (WET), a check-out after the clocks went back",
    start: "2026-10-24T15:00:00.000Z",
    end: "2026-10-26T00:30:00.000Z",
    zones: { property: "Europe/Lisbon" },
    nights: ["2026-10-24", "2026-10-26"],
  },
  {
    name: "Kiritimati (UTC+14): 08:00 on 10 Dec → 10:00 on 12 Dec, the day before in UTC",
    start: "2026-12-09T18:00:00.000Z",
    end: "2026-12-11T20:00:00.000Z",
    zones: { property: "Pacific/Kiritimati" },
    nights: ["2026-12-10", "2026-12-12"],
  },
  {
    name: "Pago Pago (UTC−11): 16:00 on 10 Dec → 10:00 on 12 Dec, the day after in UTC",
    start: "2026-12-11T03:00:00.000Z",
    end: "2026-12-12T21:00:00.000Z",
    zones: { property: "Pacific/Pago_Pago" },
    nights: ["2026-12-10", "2026-12-12"],
  },
  {
    name: "all-day dates as written, whatever zone the property and the event are in",
    start: "2026-12-10",
    end: "2026-12-13",
    zones: { property: "Pacific/Kiritimati", event: "Pacific/Pago_Pago" },
    nights: ["2026-12-10", "2026-12-13"],
  },
  {
    name: "all-day dates as written with no zone at all",
    start: "2026-12-31",
    end: "2027-01-02",
    zones: {},
    nights: ["2026-12-31", "2027-01-02"],
  },
  {
    name: "a DTEND before DTSTART: the night it starts on",
    start: "2026-12-11T00:00:00.000Z",
    end: "2026-12-10T00:00:00.000Z",
    zones: { property: "America/Los_Angeles" },
    nights: ["2026-12-10", "2026-12-11"],
  },
  {
    name: "a same-day stay (09:00 → 17:00): the night it starts on",
    start: "2026-12-10T17:00:00.000Z",
    end: "2026-12-11T01:00:00.000Z",
    zones: { property: "America/Los_Angeles" },
    nights: ["2026-12-10", "2026-12-11"],
  },
  {
    name: "a stay ending at 00:30 in Los Angeles keeps the night before",
    start: "2026-12-11T00:00:00.000Z",
    end: "2026-12-13T08:30:00.000Z",
    zones: { property: "America/Los_Angeles" },
    nights: ["2026-12-10", "2026-12-13"],
  },
  {
    name: "a stay ending at 00:30 in Auckland keeps the night before (11:30 UTC the day before)",
    start: "2026-12-20T02:00:00.000Z",
    end: "2026-12-21T11:30:00.000Z",
    zones: { property: "Pacific/Auckland" },
    nights: ["2026-12-20", "2026-12-22"],
  },
  {
    name: "a numeric offset TZID (+13:00) when the property has no zone",
    start: "2026-12-20T02:00:00.000Z",
    end: "2026-12-21T21:00:00.000Z",
    zones: { event: "+13:00" },
    nights: ["2026-12-20", "2026-12-22"],
  },
  {
    name: "a zone Intl does not know falls through to the next one",
    start: "2026-12-11T00:00:00.000Z",
    end: "2026-12-13T18:00:00.000Z",
    zones: { property: "Mars/Olympus_Mons", event: "America/Los_Angeles" },
    nights: ["2026-12-10", "2026-12-13"],
  },
];

describe("stayNights", () => {
  it.each(TABLE)("$name", ({ start, end, zones, nights }) => {
    expect(stayNights(start, end, zones)).toEqual({ arrival: nights[0], departure: nights[1] });
  });

  it("runs in the machine zone its vitest project asked for", ({ task }) => {
    const project = task.file.projectName ?? "";
    const zone = project.startsWith("TZ=") ? project.slice(3) : process.env.TZ;
    if (zone) expect(Intl.DateTimeFormat().resolvedOptions().timeZone).toBe(zone);
    // The Auckland and Los Angeles workers really are far from UTC, so a UTC shortcut would show.
    if (zone === "Pacific/Auckland") expect(new Date("2026-12-10T12:00:00Z").getTimezoneOffset()).toBe(-780);
    if (zone === "America/Los_Angeles") expect(new Date("2026-12-10T12:00:00Z").getTimezoneOffset()).toBe(480);
  });

  it("always gives a departure after the arrival, for any zone and any two instants (fast-check)", () => {
    const zones = Intl.supportedValuesOf("timeZone");
    const instant = fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2099, 11, 31) }).map((ms) => new Date(ms).toISOString());
    const zone = fc.option(fc.constantFrom(...zones), { nil: undefined });
    fc.assert(
      fc.property(instant, instant, zone, zone, (start, end, property, event) => {
        const { arrival, departure } = stayNights(start, end, { property, event });
        expect(arrival).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(departure > arrival).toBe(true);
        // The arrival is the start's own date there: never more than a day from its UTC date.
        expect(Math.abs(Date.parse(arrival) - Date.parse(start.slice(0, 10)))).toBeLessThanOrEqual(86_400_000);
        if (end >= start) expect(departure).toBe([stayNights(end, end, { property, event }).arrival, addDays(arrival, 1)].sort().at(-1));
      }),
      { numRuns: 500 },
    );
  });

  it("keeps all-day dates exactly as written in every zone (fast-check)", () => {
    const date = fc.integer({ min: 0, max: 40_000 }).map((n) => addDays("1990-01-01", n));
    const zone = fc.option(fc.constantFrom(...Intl.supportedValuesOf("timeZone")), { nil: undefined });
    fc.assert(
      fc.property(date, fc.integer({ min: 1, max: 30 }), zone, (arrival, length, property) => {
        const departure = addDays(arrival, length);
        expect(stayNights(arrival, departure, { property })).toEqual({ arrival, departure });
      }),
    );
  });
});

describe("todayAt", () => {
  // 12:00 UTC on 10 Dec: already the 11th east of +12, still the 10th in the Americas.
  const now = new Date("2026-12-10T12:00:00.000Z");

  it.each([
    ["Pacific/Auckland", "2026-12-11"],
    ["Pacific/Kiritimati", "2026-12-11"],
    ["America/Los_Angeles", "2026-12-10"],
    ["Pacific/Pago_Pago", "2026-12-10"],
    ["Europe/Lisbon", "2026-12-10"],
  ])("reads today on the property's wall clock in %s", (zone, today) => {
    expect(todayAt(now, zone)).toBe(today);
  });

  it("falls back to the machine's date without a zone", () => {
    const local = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, "0")}-${String(now.getDate()).padStart(2, "0")}`;
    expect(todayAt(now, null)).toBe(local);
  });
});

describe("canonicalTimeZone", () => {
  it.each([
    ["America/Los_Angeles", "America/Los_Angeles"],
    ["america/los_angeles", "America/Los_Angeles"],
    ["  Europe/Lisbon ", "Europe/Lisbon"],
    ["UTC", "UTC"],
    ["utc", "UTC"],
    ["US/Pacific", "US/Pacific"],
  ])("accepts %j as %j", (input, zone) => {
    expect(canonicalTimeZone(input)).toBe(zone);
  });

  it.each(["Mars/Olympus_Mons", "", "   ", "+02:00", "UTC+2", "Los Angeles", "America/Los Angeles"])("refuses %j", (input) => {
    expect(canonicalTimeZone(input)).toBeNull();
  });
});
