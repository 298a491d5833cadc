import { describe, expect, it } from "vitest";
import { findConflicts, type ConflictInput } from "../src/engine/conflicts.js";
import { addDays } from "../src/engine/nights.js";

// Fixture dates relative to today so the suite never goes stale.
const today = new Date().toISOString().slice(0, 10);
const day = (n: number): string => addDays(today, n);

let seq = 0;
function booking(over: Partial<ConflictInput> & Pick<ConflictInput, "calendarId" | "start" | "end">): ConflictInput {
  seq += 1;
  return {
    id: `rsv_${seq}`,
    propertyId: "prp_loft",
    propertyName: "Sea View Loft",
    source: over.calendarId.startsWith("cal_airbnb") ? "airbnb" : over.calendarId.startsWith("cal_vrbo") ? "vrbo" : "booking",
    kind: "booking",
    status: "active",
    summary: `Guest ${seq}`,
    ...over,
  };
}

describe("findConflicts", () => {
  it("reports nights sold on two channels, with the overlapping nights as from/to", () => {
    const airbnb = booking({ calendarId: "cal_airbnb", start: day(10), end: day(15), summary: "Reserved" });
    const bcom = booking({ calendarId: "cal_booking", start: day(13), end: day(18), summary: "CLOSED - Jane" });

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
    const out = booking({ calendarId: "cal_airbnb", start: day(10), end: day(14) });
    const inn = booking({ calendarId: "cal_booking", start: day(14), end: day(17) });
    expect(findConflicts([out, inn])).toEqual([]);
  });

  it("does not flag an owner block overlapping a booking", () => {
    const stay = booking({ calendarId: "cal_airbnb", start: day(10), end: day(14) });
    const block = booking({ calendarId: "cal_booking", start: day(1), end: day(60), kind: "block", summary: "Not available" });
    expect(findConflicts([stay, block])).toEqual([]);
  });

  it("does not flag a cancelled booking overlapping an active one", () => {
    const stay = booking({ calendarId: "cal_airbnb", start: day(10), end: day(14) });
    const gone = booking({ calendarId: "cal_booking", start: day(11), end: day(13), status: "cancelled" });
    expect(findConflicts([stay, gone])).toEqual([]);
  });

  it("does not flag two bookings of the same calendar overlapping each other", () => {
    const first = booking({ calendarId: "cal_airbnb", start: day(10), end: day(14) });
    const second = booking({ calendarId: "cal_airbnb", start: day(12), end: day(16) });
    expect(findConflicts([first, second])).toEqual([]);
  });

  it("still treats two calendars of the same source as different channels", () => {
    const a = booking({ calendarId: "cal_airbnb_1", start: day(10), end: day(14) });
    const b = booking({ calendarId: "cal_airbnb_2", start: day(12), end: day(16) });
    expect(findConflicts([a, b])).toMatchObject([{ from: day(12), to: day(14) }]);
  });

  it("reports a three-channel overlap as one conflict over every double-sold night", () => {
    const airbnb = booking({ calendarId: "cal_airbnb", start: day(10), end: day(15) });
    const bcom = booking({ calendarId: "cal_booking", start: day(12), end: day(16) });
    const vrbo = booking({ calendarId: "cal_vrbo", start: day(13), end: day(20) });

    const conflicts = findConflicts([vrbo, bcom, airbnb]);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ from: day(12), to: day(16) });
    expect(conflicts[0]!.reservations.map((r) => r.source)).toEqual(["airbnb", "booking", "vrbo"]);
  });

  it("splits a long stay crossed by two separate bookings into two conflicts", () => {
    const long = booking({ calendarId: "cal_airbnb", start: day(1), end: day(30) });
    const early = booking({ calendarId: "cal_booking", start: day(3), end: day(5) });
    const late = booking({ calendarId: "cal_booking", start: day(20), end: day(22) });

    const conflicts = findConflicts([long, early, late]);
    expect(conflicts.map((c) => [c.from, c.to, c.reservations.map((r) => r.id)])).toEqual([
      [day(3), day(5), [long.id, early.id]],
      [day(20), day(22), [long.id, late.id]],
    ]);
  });

  it("compares a timed stay with an all-day one by the stay's UTC dates", () => {
    // Timed: check-in 15:00 UTC on day 10, check-out 11:00 UTC on day 14 → nights 10..13.
    const timed = booking({ calendarId: "cal_airbnb", start: `${day(10)}T15:00:00.000Z`, end: `${day(14)}T11:00:00.000Z` });
    const turnover = booking({ calendarId: "cal_booking", start: day(14), end: day(16) });
    expect(findConflicts([timed, turnover])).toEqual([]);

    const overlapping = booking({ calendarId: "cal_booking", start: day(13), end: day(16) });
    expect(findConflicts([timed, overlapping])).toMatchObject([{ from: day(13), to: day(14) }]);
  });

  it("gives a same-day timed booking the night it starts on", () => {
    const dayUse = booking({ calendarId: "cal_airbnb", start: `${day(5)}T09:00:00.000Z`, end: `${day(5)}T17:00:00.000Z` });
    const stay = booking({ calendarId: "cal_booking", start: day(5), end: day(6) });
    expect(findConflicts([dayUse, stay])).toMatchObject([{ from: day(5), to: day(6) }]);
  });

  it("keeps properties apart and sorts by property name, then first night", () => {
    const other = { propertyId: "prp_cabin", propertyName: "Alpine Cabin" };
    const input = [
      booking({ calendarId: "cal_airbnb", start: day(40), end: day(42) }),
      booking({ calendarId: "cal_booking", start: day(41), end: day(43) }),
      booking({ calendarId: "cal_airbnb", start: day(2), end: day(4) }),
      booking({ calendarId: "cal_booking", start: day(3), end: day(5) }),
      booking({ ...other, calendarId: "cal_airbnb_c", start: day(50), end: day(52) }),
      booking({ ...other, calendarId: "cal_booking_c", start: day(51), end: day(53) }),
      // Same calendar ids on another property, same nights: not a conflict with the loft.
      booking({ ...other, propertyId: "prp_barn", propertyName: "Barn", calendarId: "cal_vrbo_b", start: day(2), end: day(4) }),
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
      input.push(booking({ calendarId: i % 2 ? "cal_airbnb" : "cal_booking", start: day(-3 * i - 3), end: day(-3 * i) }));
    }
    input.push(booking({ calendarId: "cal_vrbo", start: day(-10), end: day(-8), id: "rsv_dup" }));
    const conflicts = findConflicts(input);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]!.reservations.map((r) => r.id)).toContain("rsv_dup");
  });

  it("finds nothing in an empty list", () => {
    expect(findConflicts([])).toEqual([]);
  });

  it("with `today`, keeps only conflicts with a night on or after that date", () => {
    const past = [booking({ calendarId: "cal_airbnb", start: day(-9), end: day(-5) }), booking({ calendarId: "cal_booking", start: day(-7), end: day(-3) })];
    const endsToday = [booking({ calendarId: "cal_airbnb", start: day(-2), end: day(0) }), booking({ calendarId: "cal_booking", start: day(-1), end: day(1) })];
    const running = [booking({ calendarId: "cal_airbnb", start: day(3), end: day(6) }), booking({ calendarId: "cal_booking", start: day(5), end: day(8) })];
    const all = [...past, ...endsToday, ...running];
    expect(findConflicts(all)).toHaveLength(3);
    expect(findConflicts(all, { today }).map((c) => [c.from, c.to])).toEqual([[day(5), day(6)]]);
  });
});
