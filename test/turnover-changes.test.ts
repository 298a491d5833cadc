// The changes a cleaner is mailed about (CONTRACT §18 "Cleaners by mail"): turnovers before and after a sync.
import { describe, expect, it } from "vitest";
import { turnoverChanges } from "../src/engine/turnover-changes.js";
import { propertyTurnovers } from "../src/engine/turnovers.js";

const settings = { propertyId: "p", checkInTime: "16:00", checkOutTime: "10:00", bufferNights: 0 };
const window = { from: "2027-01-01", to: "2027-01-15" };
const stay = (id: string, arrival: string, departure: string) => ({ id, propertyId: "p", arrival, departure });
const turnovers = (...stays: ReturnType<typeof stay>[]) => propertyTurnovers(stays, settings, window);

describe("turnoverChanges", () => {
  it("says nothing when the turnovers a cleaner sees are the same", () => {
    const before = turnovers(stay("a", "2027-01-02", "2027-01-05"), stay("b", "2027-01-08", "2027-01-10"));
    expect(turnoverChanges(before, turnovers(stay("a", "2027-01-02", "2027-01-05"), stay("b", "2027-01-08", "2027-01-10")))).toEqual([]);
  });

  it("reports a moved stay as the departure moved and the turnover before it as a new next arrival", () => {
    const before = turnovers(stay("a", "2027-01-02", "2027-01-05"), stay("b", "2027-01-08", "2027-01-10"));
    const after = turnovers(stay("a", "2027-01-02", "2027-01-05"), stay("b", "2027-01-05", "2027-01-07"));
    expect(turnoverChanges(before, after)).toEqual([
      { change: "moved", date: "2027-01-05", checkOutTime: "10:00", nextArrival: { date: "2027-01-05", checkInTime: "16:00" }, sameDay: true, previousDate: "2027-01-05" },
      { change: "moved", date: "2027-01-07", checkOutTime: "10:00", nextArrival: null, sameDay: false, previousDate: "2027-01-10" },
    ]);
  });

  it("reports a cancelled stay's turnover as cancelled and one that appears as new, with no guest data", () => {
    const before = turnovers(stay("a", "2027-01-02", "2027-01-05"));
    const after = turnovers(stay("c", "2027-01-11", "2027-01-12"));
    const changes = turnoverChanges(before, after);
    expect(changes.map((c) => [c.change, c.date])).toEqual([["cancelled", "2027-01-05"], ["new", "2027-01-12"]]);
    expect(Object.keys(changes[0]!).sort()).toEqual(["change", "checkOutTime", "date", "nextArrival", "sameDay"]);
  });

  it("counts a turnover moving out of the window as gone and one moving in as new", () => {
    const before = turnovers(stay("a", "2027-01-10", "2027-01-14"));
    const after = turnovers(stay("a", "2027-01-10", "2027-01-16"));
    expect(turnoverChanges(before, after).map((c) => c.change)).toEqual(["cancelled"]);
    expect(turnoverChanges(after, before).map((c) => c.change)).toEqual(["new"]);
  });
});
