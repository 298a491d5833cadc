// A run reads each property's double bookings once its last calendar is settled, not all at the end.
import { describe, expect, it } from "vitest";
import type { ConflictInput } from "../src/engine/conflicts.js";
import { addDays } from "../src/engine/nights.js";
import { settledConflicts } from "../src/engine/settled-conflicts.js";

const today = new Date().toISOString().slice(0, 10);
const day = (n: number): string => addDays(today, n);

/** Two channels selling nights 10–15 and 13–18 of `propertyId`: one double booking, nights 13–15. */
function doubleBooked(propertyId: string, propertyName: string): ConflictInput[] {
  const base = { propertyId, propertyName, propertyTimeZone: null, kind: "booking", status: "active" } as const;
  return [
    { ...base, id: `${propertyId}-a`, calendarId: `${propertyId}-airbnb`, source: "airbnb", arrival: day(10), departure: day(15), summary: "Reserved" },
    { ...base, id: `${propertyId}-b`, calendarId: `${propertyId}-vrbo`, source: "vrbo", arrival: day(13), departure: day(18), summary: "Blocked" },
  ];
}

const calendars = [{ propertyId: "prp_b" }, { propertyId: "prp_a" }, { propertyId: "prp_b" }, { propertyId: "prp_a" }];
const stored: Record<string, ConflictInput[]> = { prp_a: doubleBooked("prp_a", "Attic"), prp_b: doubleBooked("prp_b", "Barn") };

describe("settledConflicts", () => {
  it("reads a property once, when its last calendar is settled", async () => {
    const reads: string[] = [];
    const conflicts = settledConflicts(calendars, async (propertyId) => (reads.push(propertyId), stored[propertyId]!), () => new Date());
    conflicts.settled("prp_b");
    conflicts.settled("prp_a");
    expect(reads).toEqual([]);
    conflicts.settled("prp_a");
    expect(reads).toEqual(["prp_a"]);
    conflicts.settled("prp_b");
    expect(reads).toEqual(["prp_a", "prp_b"]);
    expect((await conflicts.all()).map((conflict) => [conflict.propertyName, conflict.from, conflict.to])).toEqual([
      ["Attic", day(13), day(15)],
      ["Barn", day(13), day(15)],
    ]);
  });

  it("reads as the bookings are at that moment, so a booking written by the run's calendars counts", async () => {
    const bookings: ConflictInput[] = [];
    const conflicts = settledConflicts([{ propertyId: "prp_a" }, { propertyId: "prp_a" }], async () => [...bookings], () => new Date());
    bookings.push(stored.prp_a![0]!);
    conflicts.settled("prp_a");
    bookings.push(stored.prp_a![1]!);
    conflicts.settled("prp_a");
    expect(await conflicts.all()).toHaveLength(1);
  });

  it("counts from today at the read: a double booking that ended before is not reported", async () => {
    const conflicts = settledConflicts([{ propertyId: "prp_a" }], async () => stored.prp_a!, () => new Date(`${day(16)}T12:00:00Z`));
    conflicts.settled("prp_a");
    expect(await conflicts.all()).toEqual([]);
  });

  it("rejects all() with a failed read, and not before it is asked", async () => {
    const conflicts = settledConflicts([{ propertyId: "prp_a" }, { propertyId: "prp_b" }], async (propertyId) => {
      if (propertyId === "prp_a") throw new Error("disk I/O error");
      return stored[propertyId]!;
    }, () => new Date());
    conflicts.settled("prp_a");
    // An unhandled rejection here would fail the run (and this test) before all() is called.
    await new Promise((resolve) => setTimeout(resolve, 10));
    conflicts.settled("prp_b");
    await expect(conflicts.all()).rejects.toThrow("disk I/O error");
  });
});
