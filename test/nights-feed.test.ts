// From feed to nights to outbound feed: the zone each timed event was written in is kept, its nights
// are read there or at the property, and the outbound feed blocks exactly the nights of the active
// reservations. Runs under this machine's zone and TZ=Pacific/Auckland / America/Los_Angeles (vitest.config.ts).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DatedEvent } from "../src/engine/model.js";
import { addDays, datedEvent } from "../src/engine/nights.js";
import { buildOutboundFeed } from "../src/engine/outbound-feed.js";
import { parseFeed } from "../src/engine/parse-feed.js";

const now = new Date("2026-11-23T12:00:00.000Z");
const calendar = (header: string[], ...events: string[][]) =>
  ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...header, ...events.flatMap((lines) => ["BEGIN:VEVENT", ...lines, "END:VEVENT"]), "END:VCALENDAR"].join("\r\n");

function parsed(text: string) {
  const result = parseFeed(text, { source: "vrbo", now });
  if (!result.ok) throw new Error(result.error.message);
  return result.events;
}

/** uid → [zone, arrival, departure] at a property in `propertyZone`. */
function nights(text: string, propertyZone: string | null) {
  return Object.fromEntries(parsed(text).map((event) => {
    const dated = datedEvent(event, propertyZone);
    return [event.uid, [event.zone ?? null, dated.arrival, dated.departure]];
  }));
}

const FEED = calendar(
  ["X-WR-TIMEZONE:Pacific/Auckland"],
  ["UID:la", "DTSTART;TZID=America/Los_Angeles:20261210T160000", "DTEND;TZID=America/Los_Angeles:20261213T100000", "SUMMARY:Reserved - Ann"],
  // A UTC time has no zone of its own: the calendar's X-WR-TIMEZONE applies (15:00 → 10:00 in Auckland).
  ["UID:utc", "DTSTART:20261220T020000Z", "DTEND:20261221T210000Z", "SUMMARY:Reserved - Bo"],
  ["UID:floating", "DTSTART:20261220T150000", "DTEND:20261222T100000", "SUMMARY:Reserved - Cy"],
  // Outlook's Windows names are mapped to IANA ones by node-ical (Berlin is UTC+1 in December).
  ["UID:windows", "DTSTART;TZID=W. Europe Standard Time:20261224T003000", "DTEND;TZID=W. Europe Standard Time:20261226T003000", "SUMMARY:Reserved - Di"],
  ["UID:allday", "DTSTART;VALUE=DATE:20261212", "DTEND;VALUE=DATE:20261214", "SUMMARY:Reserved - Ed"],
  // DTEND before DTSTART: read like a missing one, the night it starts on.
  ["UID:inverted", "DTSTART;TZID=America/Los_Angeles:20261228T160000", "DTEND;TZID=America/Los_Angeles:20261227T100000", "SUMMARY:Reserved - Fe"],
);

describe("nights of a parsed feed", () => {
  it("reads each timed event in its own TZID, else the feed's X-WR-TIMEZONE, when the property has no zone", () => {
    expect(nights(FEED, null)).toEqual({
      la: ["America/Los_Angeles", "2026-12-10", "2026-12-13"],
      utc: ["Pacific/Auckland", "2026-12-20", "2026-12-22"],
      floating: ["Pacific/Auckland", "2026-12-20", "2026-12-22"],
      windows: ["Europe/Berlin", "2026-12-24", "2026-12-26"],
      allday: [null, "2026-12-12", "2026-12-14"],
      inverted: ["America/Los_Angeles", "2026-12-28", "2026-12-29"],
    });
  });

  it("reads every timed event on the property's wall clock when it has a zone", () => {
    expect(nights(FEED, "America/Los_Angeles")).toEqual({
      la: ["America/Los_Angeles", "2026-12-10", "2026-12-13"],
      // 15:00 on the 20th in Auckland is 18:00 on the 19th in Los Angeles.
      utc: ["Pacific/Auckland", "2026-12-19", "2026-12-21"],
      floating: ["Pacific/Auckland", "2026-12-19", "2026-12-21"],
      windows: ["Europe/Berlin", "2026-12-23", "2026-12-25"],
      allday: [null, "2026-12-12", "2026-12-14"],
      inverted: ["America/Los_Angeles", "2026-12-28", "2026-12-29"],
    });
  });

  it("reads UTC times as UTC dates when neither the event nor the feed names a zone", () => {
    const text = calendar([], ["UID:utc", "DTSTART:20261211T000000Z", "DTEND:20261213T180000Z"]);
    expect(nights(text, null)).toEqual({ utc: [null, "2026-12-11", "2026-12-13"] });
  });
});

describe("the outbound feed's nights (fast-check)", () => {
  const zones = ["America/Los_Angeles", "Pacific/Auckland", "Europe/Lisbon", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Kolkata"];
  const stamp = (ms: number, zone: string | null) => {
    const wall = new Date(ms).toISOString().replace(/[-:]/g, "").slice(0, 15);
    return zone ? `;TZID=${zone}:${wall}` : `:${wall}Z`;
  };
  const eventArb = fc.record({
    allDay: fc.boolean(),
    from: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2028, 0, 1) }),
    hours: fc.integer({ min: -30, max: 24 * 20 }),
    zone: fc.option(fc.constantFrom(...zones), { nil: null }),
    block: fc.boolean(),
    cancelled: fc.boolean(),
  });

  /** Each night `YYYY-MM-DD` a set of [arrival, departure) ranges covers. */
  const nightSet = (ranges: Array<{ arrival: string; departure: string }>) => {
    const set = new Set<string>();
    for (const { arrival, departure } of ranges) for (let d = arrival; d < departure; d = addDays(d, 1)) set.add(d);
    return [...set].sort();
  };

  it("equal the union of the nights of the active bookings and blocks, for any zones and instants", () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 12 }), fc.option(fc.constantFrom(...zones), { nil: null }), (specs, propertyZone) => {
        const text = calendar(
          [],
          ...specs.map((spec, i) => {
            const end = spec.from + spec.hours * 3_600_000;
            const dates = spec.allDay
              ? [`DTSTART;VALUE=DATE:${new Date(spec.from).toISOString().slice(0, 10).replaceAll("-", "")}`,
                 `DTEND;VALUE=DATE:${new Date(end).toISOString().slice(0, 10).replaceAll("-", "")}`]
              : [`DTSTART${stamp(spec.from, spec.zone)}`, `DTEND${stamp(end, spec.zone)}`];
            return [`UID:e${i}`, ...dates, `SUMMARY:${spec.block ? "Blocked" : "Reserved - Guest"}`, ...(spec.cancelled ? ["STATUS:CANCELLED"] : [])];
          }),
        );
        const active: DatedEvent[] = parsed(text).filter((e) => !e.cancelled).map((e) => datedEvent(e, propertyZone));
        const feed = buildOutboundFeed({
          propertyId: "prp_x",
          propertyName: "Loft",
          reservations: active.map((e) => ({ id: e.uid, source: "vrbo", arrival: e.arrival, departure: e.departure, kind: e.kind, status: "active" })),
          now,
        });
        const exported = parsed(feed).map((e) => datedEvent(e, propertyZone));
        expect(exported.every((e) => e.start.length === 10)).toBe(true);
        expect(nightSet(exported)).toEqual(nightSet(active));
        expect(exported.every((e) => e.departure > e.arrival)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
