import { describe, expect, it } from "vitest";
import { diffReservations, type DiffCounts } from "../src/engine/diff.js";
import type { FeedEvent, StoredReservation } from "../src/engine/model.js";
import { addDays } from "../src/engine/nights.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import { applyDiff } from "./helpers/apply-diff.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";

const now = new Date();

/** A calendar that is synced again and again, like the engine does, with the store simulated. */
function calendar(source: "airbnb" | "other" = "other") {
  let stored: StoredReservation[] = [];
  return {
    get stored() {
      return stored;
    },
    sync(events: IcsEvent[], options: { now?: Date; force?: boolean; timeZone?: string } = {}): DiffCounts & { suspicious: boolean } {
      const at = options.now ?? now;
      const parsed = parseFeed(buildIcs(events), { source, now: at });
      if (!parsed.ok) throw new Error(parsed.error.message);
      const diff = diffReservations(stored, parsed.events, { now: at, force: options.force, timeZone: options.timeZone });
      if (!diff.suspicious) stored = applyDiff(stored, diff);
      // Every counted change is one change for webhooks (CONTRACT §11), no more, no fewer.
      const tally = (change: string) => diff.changes.filter((c) => c.change === change).length;
      expect({ created: tally("created"), updated: tally("updated"), cancelled: tally("cancelled") }).toEqual({
        created: diff.counts.created,
        updated: diff.counts.updated,
        cancelled: diff.counts.cancelled,
      });
      return { ...diff.counts, suspicious: diff.suspicious !== null };
    },
  };
}

const counts = (found: number, created: number, updated: number, cancelled: number) => ({
  found,
  created,
  updated,
  cancelled,
  suspicious: false,
});

describe("diffReservations across several syncs", () => {
  it("reports exact counts as a feed gains, moves, loses, cancels and restores reservations", () => {
    const cal = calendar();
    const a = { uid: "a", start: day(10), end: day(13), summary: "Reserved" };
    const b = { uid: "b", start: day(20), end: day(22), summary: "Reserved" };
    const c = { uid: "c", start: day(30), end: day(35), summary: "Reserved" };
    const d = { uid: "d", start: day(40), end: day(41), summary: "Reserved" };

    expect(cal.sync([a, b, c, d])).toEqual(counts(4, 4, 0, 0));
    expect(cal.sync([a, b, c, d])).toEqual(counts(4, 0, 0, 0));
    // b moves two days later, e is new
    const movedB = { ...b, start: day(22), end: day(24) };
    const e = { uid: "e", start: day(50), end: day(52), summary: "Reserved" };
    expect(cal.sync([a, movedB, c, d, e])).toEqual(counts(5, 1, 1, 0));
    // c disappears, d is marked cancelled
    expect(cal.sync([a, movedB, { ...d, status: "CANCELLED" }, e])).toEqual(counts(3, 0, 0, 2));
    // c comes back: created again, not a new row
    expect(cal.sync([a, movedB, c, e])).toEqual(counts(4, 1, 0, 0));
    expect(cal.stored).toHaveLength(5);
    expect(cal.stored.find((r) => r.uid === "c")?.status).toBe("active");
    expect(cal.stored.find((r) => r.uid === "d")?.status).toBe("cancelled");
    expect(cal.sync([a, movedB, c, e])).toEqual(counts(4, 0, 0, 0));
  });

  it("keeps a past stay that dropped off the feed instead of cancelling it", () => {
    const cal = calendar();
    const past = { uid: "past", start: day(-10), end: day(-3), summary: "Reserved" };
    const endsToday = { uid: "today", start: day(-2), end: day(0), summary: "Reserved" };
    const future = { uid: "future", start: day(5), end: day(8), summary: "Reserved" };
    expect(cal.sync([past, endsToday, future])).toEqual(counts(3, 3, 0, 0));
    expect(cal.sync([future])).toEqual(counts(1, 0, 0, 0));
    expect(cal.stored.every((r) => r.status === "active")).toBe(true);
  });

  it("cancels a stay in progress that disappears, but not a timed one whose departure is today", () => {
    // A property in UTC, so the timed stays' nights and "today" are both UTC dates on any machine.
    const utcDay = (n: number) => addDays(now.toISOString().slice(0, 10), n);
    const cal = calendar();
    const ongoing = { uid: "ongoing", start: utcDay(-2), end: utcDay(2), summary: "Reserved" };
    // Checks out at 23:59 today: its departure is today, so it has ended even while the guest is still in.
    const leavesToday = { uid: "timed", start: `${utcDay(-3)}T15:00:00.000Z`, end: `${utcDay(0)}T23:59:00.000Z` };
    // Midnight to the next midnight is the night of today (CONTRACT §4): it has not ended.
    const dayUse = { uid: "day-use", start: `${utcDay(0)}T00:00:00.000Z`, end: `${utcDay(1)}T00:00:00.000Z` };
    const keep1 = { uid: "k1", start: utcDay(5), end: utcDay(6) };
    const keep2 = { uid: "k2", start: utcDay(7), end: utcDay(8) };
    const keep3 = { uid: "k3", start: utcDay(9), end: utcDay(10) };
    cal.sync([ongoing, leavesToday, dayUse, keep1, keep2, keep3], { timeZone: "UTC" });
    expect(cal.sync([keep1, keep2, keep3], { timeZone: "UTC" })).toEqual(counts(3, 0, 0, 2));
    expect(cal.stored.find((r) => r.uid === "timed")?.status).toBe("active");
    expect(cal.stored.find((r) => r.uid === "day-use")?.status).toBe("cancelled");
    expect(cal.stored.find((r) => r.uid === "ongoing")?.status).toBe("cancelled");
  });

  it("reads today for the ended rule on the property's wall clock, never the machine's", () => {
    // 12:00 UTC on 10 Dec: already the 11th in Kiritimati (UTC+14), still the 10th in Pago Pago (UTC−11).
    const at = new Date("2026-12-10T12:00:00.000Z");
    const leaving = { uid: "leaving", start: "2026-12-07", end: "2026-12-11", summary: "Reserved" };
    const later = [1, 2, 3].map((n) => ({ uid: `later-${n}`, start: `2027-01-0${n}`, end: `2027-01-0${n + 1}`, summary: "Reserved" }));
    const counted = (timeZone: string) => {
      const cal = calendar();
      cal.sync([leaving, ...later], { now: at, timeZone });
      return cal.sync(later, { now: at, timeZone });
    };
    // Its departure (the 11th) is today in Kiritimati: the stay has ended and is kept, whatever zone this machine is in.
    expect(counted("Pacific/Kiritimati")).toEqual(counts(3, 0, 0, 0));
    // Still the 10th in Pago Pago: the guest has a night left, so a stay leaving the feed is cancelled.
    expect(counted("Pacific/Pago_Pago")).toEqual(counts(3, 0, 0, 1));
  });

  it("counts a booking emitted several times in one feed once, the last copy winning", () => {
    const cal = calendar();
    const first = { uid: "dup", start: day(10), end: day(12), summary: "Reserved" };
    const last = { uid: "dup", start: day(11), end: day(14), summary: "Reserved" };
    expect(cal.sync([first, last, first, last])).toEqual(counts(1, 1, 0, 0));
    expect(cal.stored).toMatchObject([{ uid: "dup", start: day(11), end: day(14) }]);
    expect(cal.sync([last])).toEqual(counts(1, 0, 0, 0));
  });

  it("gives events without UID a stable identity across syncs", () => {
    const cal = calendar();
    const events = [
      { start: day(10), end: day(12), summary: "Blocked" },
      { start: day(20), end: day(21), summary: "Blocked" },
    ];
    expect(cal.sync(events)).toEqual(counts(2, 2, 0, 0));
    expect(cal.sync([...events].reverse())).toEqual(counts(2, 0, 0, 0));
  });

  it("treats a UID reused with new dates as an update", () => {
    const cal = calendar();
    const keep = { uid: "keep", start: day(40), end: day(42) };
    cal.sync([{ uid: "u", start: day(10), end: day(12) }, keep]);
    expect(cal.sync([{ uid: "u", start: day(60), end: day(65) }, keep])).toEqual(counts(2, 0, 1, 0));
  });

  it("updates a reservation whose details changed", () => {
    const cal = calendar("airbnb");
    const desc = (phone: string) =>
      `Reservation URL: https://www.airbnb.com/hosting/reservations/details/HMABCDEF12\nPhone Number (Last 4 Digits): ${phone}`;
    const keep = { uid: "keep", start: day(40), end: day(42), summary: "Reserved" };
    cal.sync([{ uid: "u", start: day(10), end: day(12), summary: "Reserved", description: desc("1234") }, keep]);
    expect(cal.sync([{ uid: "u", start: day(10), end: day(12), summary: "Reserved", description: desc("9876") }, keep])).toEqual(
      counts(2, 0, 1, 0),
    );
  });

  it("ignores a cancelled event it never knew and one already cancelled", () => {
    const cal = calendar();
    const keep = { uid: "keep", start: day(40), end: day(42) };
    expect(cal.sync([{ uid: "x", start: day(3), end: day(4), status: "CANCELLED" }, keep])).toEqual(counts(1, 1, 0, 0));
    expect(cal.stored).toHaveLength(1);
    const other = { uid: "o", start: day(50), end: day(52) };
    cal.sync([keep, other, { uid: "y", start: day(5), end: day(6) }]);
    expect(cal.sync([keep, other, { uid: "y", start: day(5), end: day(6), status: "CANCELLED" }])).toEqual(counts(2, 0, 0, 1));
    expect(cal.sync([keep, other, { uid: "y", start: day(5), end: day(6), status: "CANCELLED" }])).toEqual(counts(2, 0, 0, 0));
  });
});

describe("mass-cancellation guard", () => {
  const upcoming = (n: number) => Array.from({ length: n }, (_, i) => ({ uid: `u${i}`, start: day(10 + i * 3), end: day(12 + i * 3) }));
  const guard = (total: number, kept: number, force = false) => {
    const cal = calendar();
    cal.sync(upcoming(total));
    const before = cal.stored;
    const result = cal.sync(upcoming(total).slice(0, kept), { force });
    return { result, unchanged: cal.stored === before };
  };

  it("trips when every one of 2 upcoming reservations would be cancelled, and writes nothing", () => {
    const { result, unchanged } = guard(2, 0);
    expect(result).toEqual({ found: 0, created: 0, updated: 0, cancelled: 2, suspicious: true });
    expect(unchanged).toBe(true);
  });
  it("does not trip for 1 of 2", () => expect(guard(2, 1).result).toEqual(counts(1, 0, 0, 1)));
  it("trips for 4 of 5", () => expect(guard(5, 1).result.suspicious).toBe(true));
  it("does not trip for 3 of 5", () => expect(guard(5, 2).result).toEqual(counts(2, 0, 0, 3)));
  it("does not trip when the only upcoming reservation goes", () => expect(guard(1, 0).result).toEqual(counts(0, 0, 0, 1)));
  it("lets force apply a suspicious feed", () => expect(guard(5, 0, true).result).toEqual(counts(0, 0, 0, 5)));
  it("leaves echoes out: a channel that stops importing calsync's feed drops them all, and that is no mass cancellation", () => {
    // Booking.com's re-exports of two Airbnb stays (CONTRACT §8); the owner rotated the feed URL, so Booking.com reopened them.
    const echo = (uid: string, from: number): StoredReservation => ({
      id: `rsv_${uid}`, calendarId: "cal_b", uid, kind: "block", status: "active", start: day(from), end: day(from + 3),
      summary: "CLOSED - Not available", details: {}, arrival: day(from), departure: day(from + 3), eventZone: null, echoOf: `rsv_air_${uid}`,
    });
    const sale = (uid: string, from: number): StoredReservation => ({ ...echo(uid, from), kind: "booking", echoOf: null });
    const echoes = [echo("e1", 10), echo("e2", 20)];
    expect(diffReservations(echoes, [], { now })).toMatchObject({ counts: { cancelled: 2 }, suspicious: null });
    // Its own sales still count: an empty feed would cancel both of them.
    expect(diffReservations([...echoes, sale("s1", 30), sale("s2", 40)], [], { now }).suspicious).toEqual({ upcoming: 2, cancelling: 2 });
  });
  it("does not count ended reservations as upcoming", () => {
    const cal = calendar();
    const past = Array.from({ length: 6 }, (_, i) => ({ uid: `p${i}`, start: day(-30 + i), end: day(-29 + i) }));
    const future = upcoming(2);
    cal.sync([...past, ...future]);
    expect(cal.sync([future[0]!])).toEqual(counts(1, 0, 0, 1));
  });
});

describe("Airbnb rolling 'Not available' window", () => {
  it("updates the moving window over 5 days instead of creating and cancelling it", () => {
    const cal = calendar("airbnb");
    const booking = { uid: "booking-1@airbnb.com", start: day(20), end: day(25), summary: "Reserved" };
    const base = new Date();
    for (let d = 0; d < 5; d++) {
      const at = new Date(base.getFullYear(), base.getMonth(), base.getDate() + d, 12);
      // Both ends move daily and the UID changes each day, as Airbnb does.
      const window = { uid: `rolling-${d}@airbnb.com`, start: day(180 + d), end: day(365 + d), summary: "Airbnb (Not available)" };
      const fixedEnd = { uid: `end-${d}@airbnb.com`, start: day(d), end: day(400), summary: "Airbnb (Not available)" };
      const result = cal.sync([booking, window, fixedEnd], { now: at });
      expect(result).toEqual(d === 0 ? counts(3, 3, 0, 0) : counts(3, 0, 2, 0));
    }
    expect(cal.stored).toHaveLength(3);
    expect(cal.stored.filter((r) => r.status === "active")).toHaveLength(3);
  });

  it("reports no change when the window only comes back under a new UID", () => {
    const cal = calendar("airbnb");
    const keep = { uid: "keep", start: day(50), end: day(52), summary: "Reserved" };
    const window = (uid: string) => ({ uid, start: day(180), end: day(365), summary: "Airbnb (Not available)" });
    cal.sync([keep, window("w1")]);
    expect(cal.sync([keep, window("w2")])).toEqual(counts(2, 0, 0, 0));
    expect(cal.sync([keep, window("w2")])).toEqual(counts(2, 0, 0, 0));
    expect(cal.stored.map((r) => r.uid).sort()).toEqual(["keep", "w2"]);
  });

  it("leaves an ended block as it was rather than moving it onto a new block", () => {
    const cal = calendar("airbnb");
    const keep = { uid: "keep", start: day(50), end: day(52), summary: "Reserved" };
    const past = { uid: "past", start: day(-10), end: day(-2), summary: "Airbnb (Not available)" };
    cal.sync([keep, past]);
    const extended = { uid: "new", start: day(-10), end: day(5), summary: "Airbnb (Not available)" };
    expect(cal.sync([keep, extended])).toEqual(counts(2, 1, 0, 0));
    expect(cal.stored.find((r) => r.uid === "past")).toMatchObject({ status: "active", start: day(-10), end: day(-2) });
  });

  it("pairs a moved block by its unchanged end before any overlap", () => {
    const block = (id: string, start: number, end: number): StoredReservation => ({
      id, calendarId: "c", uid: `old-${id}`, kind: "block", status: "active", start: day(start), end: day(end),
      summary: "Airbnb (Not available)", details: {}, arrival: day(start), departure: day(end), eventZone: null,
    });
    const event = (uid: string, start: number, end: number): FeedEvent => ({
      uid, kind: "block", start: day(start), end: day(end), summary: "Airbnb (Not available)", cancelled: false, details: {}, raw: {},
    });
    // x overlaps both rows; y keeps a's end. Feed order must not let x take a.
    const diff = diffReservations([block("a", 10, 20), block("b", 15, 30)], [event("x", 16, 25), event("y", 11, 20)], { now });
    expect(diff.updates.map((u) => [u.id, u.event.uid]).sort()).toEqual([["a", "y"], ["b", "x"]]);
    expect(diff.counts).toEqual({ found: 2, created: 0, updated: 2, cancelled: 0 });
  });

  it("still cancels a booking that disappears while a block appears", () => {
    const cal = calendar("airbnb");
    const keep = { uid: "keep", start: day(50), end: day(52), summary: "Reserved" };
    cal.sync([keep, { uid: "b1", start: day(10), end: day(12), summary: "Reserved" }]);
    expect(cal.sync([keep, { uid: "n1", start: day(10), end: day(12), summary: "Airbnb (Not available)" }])).toEqual(
      counts(2, 1, 0, 1),
    );
  });
});

describe("diffReservations on raw values", () => {
  it("reports nothing for an empty feed on an empty calendar", () => {
    const result = diffReservations([], [], { now });
    expect(result).toEqual({ counts: { found: 0, created: 0, updated: 0, cancelled: 0 }, inserts: [], updates: [], cancels: [], suspicious: null, changes: [] });
  });

  it("compares details whatever their key order", () => {
    const event: FeedEvent = {
      uid: "x", kind: "booking", start: day(3), end: day(4), summary: "Reserved", cancelled: false,
      details: { reservationCode: "HM1", phoneLast4: "1234" }, raw: {},
    };
    const row: StoredReservation = {
      id: "r1", calendarId: "c", uid: "x", kind: "booking", status: "active", start: day(3), end: day(4),
      summary: "Reserved", details: { phoneLast4: "1234", reservationCode: "HM1" }, arrival: day(3), departure: day(4), eventZone: null,
    };
    expect(diffReservations([row], [event], { now }).counts).toEqual({ found: 1, created: 0, updated: 0, cancelled: 0 });
  });
});
