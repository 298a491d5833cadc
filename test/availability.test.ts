import { describe, expect, it } from "vitest";
import { availabilityNights, takenBy, type AvailabilityInput } from "../src/engine/availability.js";

const stay = (id: string, arrival: string, departure: string, extra: Partial<AvailabilityInput> = {}): AvailabilityInput => ({
  id, status: "active", arrival, departure, echoOf: null, kind: "booking", ...extra,
});

describe("availabilityNights", () => {
  it("marks the nights of an active stay taken and the departure morning free", () => {
    const nights = availabilityNights([stay("a", "2027-03-12", "2027-03-15")], { from: "2027-03-11", to: "2027-03-16" });
    expect(nights.map((n) => [n.date, n.available])).toEqual([
      ["2027-03-11", true], ["2027-03-12", false], ["2027-03-13", false], ["2027-03-14", false], ["2027-03-15", true],
    ]);
    expect(nights[1]!.reservationIds).toEqual(["a"]);
  });

  it("frees the nights of a cancelled stay and clips stays to the range across a month end", () => {
    const nights = availabilityNights(
      [stay("a", "2027-01-30", "2027-02-03"), stay("b", "2027-02-01", "2027-02-02", { status: "cancelled" })],
      { from: "2027-02-01", to: "2027-02-03" },
    );
    expect(nights).toEqual([
      { date: "2027-02-01", available: false, reservationIds: ["a"] },
      { date: "2027-02-02", available: false, reservationIds: ["a"] },
    ]);
  });

  it("counts an echo only while the stay it repeats is active", () => {
    const range = { from: "2027-05-01", to: "2027-05-03" };
    const echo = stay("e", "2027-05-01", "2027-05-02", { echoOf: "d" });
    expect(availabilityNights([stay("d", "2027-05-01", "2027-05-02", { status: "cancelled" }), echo], range)[0]!.available).toBe(true);
    expect(availabilityNights([echo], { ...range, targetStatus: new Map([["d", "cancelled"]]) })[0]!.available).toBe(true);
    // A target nobody can name is taken to be active: never call a night free on a guess.
    expect(availabilityNights([echo], range)[0]!.reservationIds).toEqual(["e"]);
  });

  it("names the stays that take any night of a range", () => {
    const rows = [stay("a", "2027-03-10", "2027-03-12"), stay("b", "2027-03-12", "2027-03-14"), stay("c", "2027-03-01", "2027-03-02")];
    expect(takenBy(rows, { from: "2027-03-11", to: "2027-03-13" }).map((r) => r.id)).toEqual(["a", "b"]);
    expect(takenBy(rows, { from: "2027-03-14", to: "2027-03-20" })).toEqual([]);
  });
});

describe("buffer nights (CONTRACT §18)", () => {
  const range = { from: "2027-01-01", to: "2027-01-10" };
  const taken = (nights: Array<{ date: string; available: boolean }>) => nights.filter((n) => !n.available).map((n) => n.date.slice(8));

  it("takes the n nights before a booking's arrival and after its departure, never around a block or a cancelled stay", () => {
    const rows = [
      stay("b", "2027-01-04", "2027-01-06"),
      stay("blk", "2027-01-08", "2027-01-09", { kind: "block" }),
      stay("gone", "2027-01-01", "2027-01-02", { status: "cancelled" }),
    ];
    expect(taken(availabilityNights(rows, { ...range, bufferNights: 1 }))).toEqual(["03", "04", "05", "06", "08"]);
    expect(taken(availabilityNights(rows, { ...range, bufferNights: 2 }))).toEqual(["02", "03", "04", "05", "06", "07", "08"]);
    expect(taken(availabilityNights(rows, range))).toEqual(["04", "05", "08"]);
  });

  it("names the booking whose buffer holds a night, and takenBy finds it from the nights next to it", () => {
    const rows = [stay("b", "2027-01-04", "2027-01-06")];
    expect(availabilityNights(rows, { ...range, bufferNights: 1 })[5]).toEqual({ date: "2027-01-06", available: false, reservationIds: ["b"] });
    expect(takenBy(rows, { from: "2027-01-06", to: "2027-01-08", bufferNights: 1 }).map((r) => r.id)).toEqual(["b"]);
    expect(takenBy(rows, { from: "2027-01-07", to: "2027-01-08", bufferNights: 1 })).toEqual([]);
  });
});
