import { describe, expect, it } from "vitest";
import { findConflicts, type ConflictInput } from "../src/engine/conflicts.js";
import { addDays, stayNights } from "../src/engine/nights.js";

// Fixture dates relative to today so the suite never goes stale.
const today = new Date().toISOString().slice(0, 10);
const day = (n: number): string => addDays(today, n);

let seq = 0;
function booking(over: Partial<ConflictInput> & Pick<ConflictInput, "calendarId" | "arrival" | "departure">): ConflictInput {
  seq += 1;
  return {
    id: `rsv_${seq}`,
    propertyId: "prp_loft",
    propertyName: "Sea View Loft",
    propertyTimeZone: null,
    source: over.calendarId.startsWith("cal_airbnb") ? "airbnb" : over.calendarId.startsWith("cal_vrbo") ? "vrbo" : "booking",
    kind: "booking",
    status: "active",
    summary: `Guest ${seq}`,
    ...over,
  };
}

describe("findConflicts", () => {
  it("reports nights sold on two channels, with the overlapping nights as from/to", () => {
    const airbnb = booking({ calendarId: "cal_airbnb", arrival: day(10), departure: day(15), summary: "Reserved" });
    const bcom = booking({ calendarId: "cal_booking", arrival: day(13), departure: day(18), summary: "CLOSED - Jane" });

    expect(findConflicts([airbnb, bcom])).toEqual([
      {
        propertyId: "prp_loft",
        propertyName: "Sea View Loft",
        from: day(13),
        to: day(15),
        reservations: [
          { id: airbnb.id, source: "airbnb", summary: "Reserved" },
          { id: bcom.id, source: "booking", summary: "CLOSED - Jane" },
        ],
      },
    ]);
  });

  it("does not flag a same-day turnover (one guest leaves the day the next arrives)", () => {
    const out = booking({ calendarId: "cal_airbnb", arrival: day(10), departure: day(14) });
    const inn = booking({ calendarId: "cal_booking", arrival: day(14), departure: day(17) });
    expect(findConflicts([out, inn])).toEqual([]);
  });

  it("does not flag an owner block overlapping a booking", () => {
    const stay = booking({ calendarId: "cal_airbnb", arrival: day(10), departure: day(14) });
    const block = booking({ calendarId: "cal_booking", arrival: day(1), departure: day(60), kind: "block", summary: "Not available" });
    expect(findConflicts([stay, block])).toEqual([]);
  });

  it("does not flag a cancelled booking overlapping an active one", () => {
    const stay = booking({ calendarId: "cal_airbnb", arrival: day(10), departure: day(14) });
    const gone = booking({ calendarId: "cal_booking", arrival: day(11), departure: day(13), status: "cancelled" });
    expect(findConflicts([stay, gone])).toEqual([]);
  });

  it("does not flag two bookings of the same calendar overlapping each other", () => {
    const first = booking({ calendarId: "cal_airbnb", arrival: day(10), departure: day(14) });
    const second = booking({ calendarId: "cal_airbnb", arrival: day(12), departure: day(16) });
    expect(findConflicts([first, second])).toEqual([]);
  });

  it("still treats two calendars of the same source as different channels", () => {
    const a = booking({ calendarId: "cal_airbnb_1", arrival: day(10), departure: day(14) });
    const b = booking({ calendarId: "cal_airbnb_2", arrival: day(12), departure: day(16) });
    expect(findConflicts([a, b])).toMatchObject([{ from: day(12), to: day(14) }]);
  });

  it("reports a three-channel overlap as one conflict over every double-sold night", () => {
    const airbnb = booking({ calendarId: "cal_airbnb", arrival: day(10), departure: day(15) });
    const bcom = booking({ calendarId: "cal_booking", arrival: day(12), departure: day(16) });
    const vrbo = booking({ calendarId: "cal_vrbo", arrival: day(13), departure: day(20) });

    const conflicts = findConflicts([vrbo, bcom, airbnb]);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ from: day(12), to: day(16) });
    expect(conflicts[0]!.reservations.map((r) => r.source)).toEqual(["airbnb", "booking", "vrbo"]);
  });

  it("splits a long stay crossed by two separate bookings into two conflicts", () => {
    const long = booking({ calendarId: "cal_airbnb", arrival: day(1), departure: day(30) });
    const early = booking({ calendarId: "cal_booking", arrival: day(3), departure: day(5) });
    const late = booking({ calendarId: "cal_booking", arrival: day(20), departure: day(22) });

    const conflicts = findConflicts([long, early, late]);
    expect(conflicts.map((c) => [c.from, c.to, c.reservations.map((r) => r.id)])).toEqual([
      [day(3), day(5), [long.id, early.id]],
      [day(20), day(22), [long.id, late.id]],
    ]);
  });

  it("compares a timed stay with an all-day one by the stay's nights at the property", () => {
    // 16:00 on 10 Dec → 10:00 on 13 Dec in Los Angeles (00:00 UTC on the 11th): nights 10, 11, 12.
    const nights = stayNights("2026-12-11T00:00:00.000Z", "2026-12-13T18:00:00.000Z", { property: "America/Los_Angeles" });
    const timed = booking({ calendarId: "cal_vrbo", ...nights });
    const firstNight = booking({ calendarId: "cal_airbnb", arrival: "2026-12-09", departure: "2026-12-11" });
    expect(findConflicts([timed, firstNight])).toMatchObject([{ from: "2026-12-10", to: "2026-12-11" }]);

    const turnover = booking({ calendarId: "cal_booking", arrival: "2026-12-13", departure: "2026-12-16" });
    expect(findConflicts([timed, turnover])).toEqual([]);
  });

  it("keeps only conflicts with a night today or later at the property, in its own zone", () => {
    // 10:00 UTC: already the next day in Kiritimati (UTC+14), still the same day in Pago Pago (UTC−11).
    const now = new Date("2031-03-01T10:00:00Z");
    const pair = (propertyId: string, propertyTimeZone: string) => [
      booking({ propertyId, propertyTimeZone, calendarId: "cal_airbnb", arrival: "2031-02-27", departure: "2031-03-02" }),
      booking({ propertyId, propertyTimeZone, calendarId: "cal_booking", arrival: "2031-02-28", departure: "2031-03-02" }),
    ];
    const found = findConflicts([...pair("prp_east", "Pacific/Kiritimati"), ...pair("prp_west", "Pacific/Pago_Pago")], { now });
    // In Kiritimati it is 2 March: the last shared night (1 March) is past. In Pago Pago it is 28 February.
    expect(found.map((c) => c.propertyId)).toEqual(["prp_west"]);
  });

  it("keeps properties apart and sorts by property name, then first night", () => {
    const other = { propertyId: "prp_cabin", propertyName: "Alpine Cabin" };
    const input = [
      booking({ calendarId: "cal_airbnb", arrival: day(40), departure: day(42) }),
      booking({ calendarId: "cal_booking", arrival: day(41), departure: day(43) }),
      booking({ calendarId: "cal_airbnb", arrival: day(2), departure: day(4) }),
      booking({ calendarId: "cal_booking", arrival: day(3), departure: day(5) }),
      booking({ ...other, calendarId: "cal_airbnb_c", arrival: day(50), departure: day(52) }),
      booking({ ...other, calendarId: "cal_booking_c", arrival: day(51), departure: day(53) }),
      // Same calendar ids on another property, same nights: not a conflict with the loft.
      booking({ ...other, propertyId: "prp_barn", propertyName: "Barn", calendarId: "cal_vrbo_b", arrival: day(2), departure: day(4) }),
    ];
    expect(findConflicts(input).map((c) => [c.propertyName, c.from])).toEqual([
      ["Alpine Cabin", day(51)],
      ["Sea View Loft", day(3)],
      ["Sea View Loft", day(41)],
    ]);
  });

  it("handles thousands of past stays with one double booking among them", () => {
    const input: ConflictInput[] = [];
    for (let i = 0; i < 5000; i++) {
      input.push(booking({ calendarId: i % 2 ? "cal_airbnb" : "cal_booking", arrival: day(-3 * i - 3), departure: day(-3 * i) }));
    }
    input.push(booking({ calendarId: "cal_vrbo", arrival: day(-10), departure: day(-8), id: "rsv_dup" }));
    const conflicts = findConflicts(input);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]!.reservations.map((r) => r.id)).toContain("rsv_dup");
  });

  it("finds nothing in an empty list", () => {
    expect(findConflicts([])).toEqual([]);
  });

  it("with `now`, keeps only conflicts with a night on or after its date", () => {
    const past = [booking({ calendarId: "cal_airbnb", arrival: day(-9), departure: day(-5) }), booking({ calendarId: "cal_booking", arrival: day(-7), departure: day(-3) })];
    const endsToday = [booking({ calendarId: "cal_airbnb", arrival: day(-2), departure: day(0) }), booking({ calendarId: "cal_booking", arrival: day(-1), departure: day(1) })];
    const running = [booking({ calendarId: "cal_airbnb", arrival: day(3), departure: day(6) }), booking({ calendarId: "cal_booking", arrival: day(5), departure: day(8) })];
    // `today` is UTC's date: read it there, whatever the machine's zone.
    const all = [...past, ...endsToday, ...running].map((r) => ({ ...r, propertyTimeZone: "UTC" }));
    expect(findConflicts(all)).toHaveLength(3);
    expect(findConflicts(all, { now: new Date() }).map((c) => [c.from, c.to])).toEqual([[day(5), day(6)]]);
  });
});
