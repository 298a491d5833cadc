// Turnovers as a pure function (CONTRACT §18): departures, the next arrival, same-day and tight ones.
import { describe, expect, it } from "vitest";
import { ownerTurnovers, propertyTurnovers } from "../src/engine/turnovers.js";

const settings = { propertyId: "p", checkInTime: "16:00", checkOutTime: "10:00", bufferNights: 1 };
const range = { from: "2027-01-01", to: "2027-02-01" };
const stay = (id: string, arrival: string, departure: string, propertyId = "p") => ({ id, propertyId, arrival, departure });

describe("propertyTurnovers", () => {
  it("gives every departure its next arrival, marks same-day and tight ones, and none after the last stay", () => {
    const bookings = [stay("c", "2027-01-20", "2027-01-22"), stay("a", "2027-01-10", "2027-01-13"), stay("b", "2027-01-13", "2027-01-15")];
    expect(propertyTurnovers(bookings, settings, range)).toEqual([
      { date: "2027-01-13", propertyId: "p", departingReservationId: "a", checkOutTime: "10:00", nextArrival: { date: "2027-01-13", reservationId: "b", checkInTime: "16:00" }, sameDay: true, tight: true },
      { date: "2027-01-15", propertyId: "p", departingReservationId: "b", checkOutTime: "10:00", nextArrival: { date: "2027-01-20", reservationId: "c", checkInTime: "16:00" }, sameDay: false, tight: false },
      { date: "2027-01-22", propertyId: "p", departingReservationId: "c", checkOutTime: "10:00", nextArrival: null, sameDay: false, tight: false },
    ]);
  });

  it("calls an arrival inside the departing booking's buffer tight, and one just past it not; no buffer, nothing is tight", () => {
    const bookings = [stay("a", "2027-01-10", "2027-01-13"), stay("b", "2027-01-14", "2027-01-16")];
    const tight = (bufferNights: number) => propertyTurnovers(bookings, { ...settings, bufferNights }, range)[0]!.tight;
    expect([tight(0), tight(1), tight(2)]).toEqual([false, false, true]);
    expect(propertyTurnovers([stay("a", "2027-01-10", "2027-01-13"), stay("b", "2027-01-13", "2027-01-15")], { ...settings, bufferNights: 0 }, range)[0]).toMatchObject({ sameDay: true, tight: false });
  });

  it("never takes a stay arriving before the departure (a double booking) for the next arrival, and keeps to the range", () => {
    const bookings = [stay("a", "2027-01-10", "2027-01-14"), stay("x", "2027-01-12", "2027-01-13"), stay("b", "2027-01-18", "2027-01-19")];
    const [first] = propertyTurnovers(bookings, settings, range);
    expect(first).toMatchObject({ date: "2027-01-13", departingReservationId: "x", nextArrival: { reservationId: "b" } });
    expect(propertyTurnovers(bookings, settings, { from: "2027-01-14", to: "2027-01-19" }).map((t) => t.date)).toEqual(["2027-01-14"]);
  });
});

describe("ownerTurnovers", () => {
  it("keeps each property's stays to itself, with its own times, in one order by date", () => {
    const bookings = [stay("a", "2027-01-10", "2027-01-13", "p"), stay("q1", "2027-01-11", "2027-01-12", "q"), stay("q2", "2027-01-13", "2027-01-14", "q")];
    const turnovers = ownerTurnovers(bookings, [
      { ...settings, range },
      { propertyId: "q", checkInTime: "15:00", checkOutTime: "11:00", bufferNights: 0, range },
    ]);
    expect(turnovers.map((t) => [t.date, t.departingReservationId, t.nextArrival?.reservationId ?? null, t.checkOutTime])).toEqual([
      ["2027-01-12", "q1", "q2", "11:00"],
      ["2027-01-13", "a", null, "10:00"],
      ["2027-01-14", "q2", null, "11:00"],
    ]);
  });
});
