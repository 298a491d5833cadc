// A timed event within one local day takes no night (CONTRACT §4): a cleaning, a check-out marker, a
// viewing. Not stored, not counted; a stored stay whose event becomes one is cancelled, unless it has
// ended; and those cancellations are no sign of a broken feed, so the mass-cancellation guard leaves them out.
import { describe, expect, it } from "vitest";
import { diffReservations } from "../src/engine/diff.js";
import type { StoredReservation } from "../src/engine/model.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import { applyDiff } from "./helpers/apply-diff.js";
import { buildIcs, type IcsEvent } from "./helpers/ics.js";

const now = new Date("2027-05-01T12:00:00Z");
/** `days` after 2027-05-01 at `time` UTC, as an ISO instant. */
const at = (days: number, time: string) => new Date(Date.parse(`2027-05-01T${time}Z`) + days * 86_400_000).toISOString();

function calendar(timeZone: string | null = "UTC") {
  let stored: StoredReservation[] = [];
  return {
    get stored() {
      return stored;
    },
    sync(events: IcsEvent[], options: { now?: Date; force?: boolean } = {}) {
      const parsed = parseFeed(buildIcs(events), { source: "google", now: options.now ?? now });
      if (!parsed.ok) throw new Error(parsed.error.message);
      const diff = diffReservations(stored, parsed.events, { now: options.now ?? now, force: options.force, timeZone });
      if (!diff.suspicious) stored = applyDiff(stored, diff);
      return { ...diff.counts, suspicious: diff.suspicious !== null };
    },
    status: (uid: string) => stored.find((row) => row.uid === uid)?.status,
  };
}

const stay: IcsEvent = { uid: "stay", start: "2027-05-10", end: "2027-05-14", summary: "Guest" };
const cleaning: IcsEvent = { uid: "cleaning", start: at(13, "11:00:00"), end: at(13, "13:00:00"), summary: "Cleaning" };
const marker: IcsEvent = { uid: "checkout", start: at(13, "10:00:00"), summary: "Check-out" };

describe("timed events within one local day", () => {
  it("are neither stored nor counted: a cleaning and a check-out marker beside a stay", () => {
    const cal = calendar();
    expect(cal.sync([stay, cleaning, marker])).toEqual({ found: 1, created: 1, updated: 0, cancelled: 0, suspicious: false });
    expect(cal.stored.map((row) => row.uid)).toEqual(["stay"]);
  });

  it("00:00 to the next 00:00 is one night, and 10:00 to the next 00:00 the night of the 10th", () => {
    const cal = calendar();
    cal.sync([
      { uid: "midnight", start: at(23, "00:00:00"), end: at(24, "00:00:00") },
      { uid: "evening", start: at(9, "10:00:00"), end: at(10, "00:00:00") },
    ]);
    expect(cal.stored.map((row) => [row.uid, row.arrival, row.departure])).toEqual([
      ["midnight", "2027-05-24", "2027-05-25"],
      ["evening", "2027-05-10", "2027-05-11"],
    ]);
  });

  it("are read on the property's wall clock: 22:00–02:00 UTC is one morning in Tokyo", () => {
    const late = { uid: "late", start: at(5, "22:00:00"), end: at(6, "02:00:00") };
    expect(calendar("UTC").sync([late]).found).toBe(1);
    expect(calendar("Asia/Tokyo").sync([late]).found).toBe(0);
  });

  it("cancel the stored stay of an event moved within one day, and count it no more", () => {
    const cal = calendar();
    const overnight = { uid: "viewing", start: at(20, "18:00:00"), end: at(21, "09:00:00") };
    cal.sync([stay, overnight]);
    expect(cal.sync([stay, { ...overnight, end: at(20, "19:00:00") }])).toEqual({ found: 1, created: 0, updated: 0, cancelled: 1, suspicious: false });
    expect(cal.status("viewing")).toBe("cancelled");
    // Unchanged again: nothing more.
    expect(cal.sync([stay, { ...overnight, end: at(20, "19:00:00") }])).toEqual({ found: 1, created: 0, updated: 0, cancelled: 0, suspicious: false });
  });

  it("keep a stay that has ended as it was", () => {
    const cal = calendar();
    const past = { uid: "past", start: at(-5, "18:00:00"), end: at(-3, "09:00:00") };
    cal.sync([past, stay]);
    expect(cal.sync([{ ...past, end: at(-5, "20:00:00") }, stay]).cancelled).toBe(0);
    expect(cal.status("past")).toBe("active");
  });

  it("are left out of the mass-cancellation guard: the feed still holds them", () => {
    const cal = calendar();
    const timed = [1, 2, 3].map((n) => ({ uid: `t${n}`, start: at(n * 3, "16:00:00"), end: at(n * 3 + 1, "10:00:00") }));
    cal.sync(timed);
    // Every upcoming stay turns into a same-day event: cancelled, and no suspicious_feed.
    const sameDay = timed.map((event) => ({ ...event, end: event.start.replace("T16:", "T17:") }));
    expect(cal.sync(sameDay)).toEqual({ found: 0, created: 0, updated: 0, cancelled: 3, suspicious: false });
  });

  it("leave the guard to trip when the stays that remain all drop out of the feed", () => {
    const cal = calendar();
    const timed = [1, 2].map((n) => ({ uid: `t${n}`, start: at(n * 3, "16:00:00"), end: at(n * 3 + 1, "10:00:00") }));
    const bookings = [{ uid: "b1", start: "2027-06-01", end: "2027-06-03" }, { uid: "b2", start: "2027-06-05", end: "2027-06-07" }];
    cal.sync([...timed, ...bookings]);
    const sameDay = timed.map((event) => ({ ...event, end: event.start.replace("T16:", "T17:") }));
    expect(cal.sync(sameDay).suspicious).toBe(true);
    expect(cal.sync(sameDay, { force: true })).toMatchObject({ cancelled: 4, suspicious: false });
  });
});
