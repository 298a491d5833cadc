// Echo detection, pure (CONTRACT §8 "Echoes"): which events of a channel repeat nights calsync's own
// outbound feed served to that channel, and which are its sales.
import { describe, expect, it } from "vitest";
import { diffReservations } from "../src/engine/diff.js";
import { echoOf, fetchedNights, markEchoes, type OutboundFetchRecord, type ServedNights } from "../src/engine/echoes.js";
import type { FeedEvent, StoredReservation } from "../src/engine/model.js";
import { buildOutboundFeed, servedReservations, type OutboundReservation } from "../src/engine/outbound-feed.js";
import type { CalendarSource } from "../src/types.js";

const HOUR = 3_600_000;
const t0 = Date.parse("2027-03-01T12:00:00Z");
const at = (hours: number) => new Date(t0 + hours * HOUR);
const iso = (hours: number) => at(hours).toISOString();

const served = (reservationId: string, arrival: string, departure: string): ServedNights => ({ reservationId, arrival, departure });
/** What `?exclude=<exclude>` served from `hours` (first fetch) to `until` (last fetch, default the same). */
const fetched = (exclude: CalendarSource[], hours: number, nights: ServedNights[], until = hours): OutboundFetchRecord => ({
  exclude,
  firstFetchedAt: iso(hours),
  lastFetchedAt: iso(until),
  fetches: 1,
  nights,
});

/** Airbnb's stay A (10–15 March) served to Booking.com's URL at hour 0. */
const airbnbStay = [fetched(["booking"], 0, [served("rsv_A", "2027-03-10", "2027-03-15")])];
const booking = (seenAtHours: number, fetches: OutboundFetchRecord[] = airbnbStay) => ({ source: "booking" as const, seenAt: at(seenAtHours), fetches });
const nights = (arrival: string, departure: string) => ({ arrival, departure });

describe("echoOf", () => {
  it("takes an event with exactly the nights served, first seen after the fetch, for an echo of the reservation behind them", () => {
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(1))).toBe("rsv_A");
  });

  it("asks for exact nights: one night more or less at either end is a sale", () => {
    for (const [arrival, departure] of [["2027-03-10", "2027-03-14"], ["2027-03-11", "2027-03-15"], ["2027-03-09", "2027-03-15"], ["2027-03-10", "2027-03-16"]]) {
      expect(echoOf(nights(arrival!, departure!), booking(1)), `${arrival}–${departure}`).toBeNull();
    }
  });

  it("takes a run of back-to-back or overlapping served events the channel merged into one range, naming the run's first reservation", () => {
    const fetches = [fetched(["booking"], 0, [
      served("rsv_C", "2027-03-15", "2027-03-18"),
      served("rsv_A", "2027-03-10", "2027-03-13"),
      served("rsv_B", "2027-03-13", "2027-03-15"),
      served("rsv_V", "2027-03-17", "2027-03-20"),
      served("rsv_Z", "2027-03-25", "2027-03-27"),
    ])];
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(1, fetches))).toBe("rsv_A");
    expect(echoOf(nights("2027-03-13", "2027-03-18"), booking(1, fetches))).toBe("rsv_B");
    // C and V overlap (a Vrbo block over an Airbnb stay): the channel closes their union.
    expect(echoOf(nights("2027-03-10", "2027-03-20"), booking(1, fetches))).toBe("rsv_A");
    // A free night (20–25) breaks a run: no channel closes it on calsync's word.
    expect(echoOf(nights("2027-03-17", "2027-03-27"), booking(1, fetches))).toBeNull();
    expect(echoOf(nights("2027-03-10", "2027-03-16"), booking(1, fetches))).toBeNull();
  });

  it("prefers the one served event with exactly the nights over a run starting the same day", () => {
    const fetches = [fetched(["booking"], 0, [served("rsv_A", "2027-03-10", "2027-03-12"), served("rsv_B", "2027-03-10", "2027-03-15")])];
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(1, fetches))).toBe("rsv_B");
  });

  it("counts only fetches whose exclude contains the calendar's source", () => {
    const served10 = [served("rsv_A", "2027-03-10", "2027-03-15")];
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(1, [fetched(["airbnb"], 0, served10)]))).toBeNull();
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(1, [fetched([], 0, served10)]))).toBeNull();
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(1, [fetched(["vrbo", "booking"], 0, served10)]))).toBe("rsv_A");
    expect(echoOf(nights("2027-03-10", "2027-03-15"), { ...booking(1, [fetched(["booking"], 0, served10)]), source: "vrbo" })).toBeNull();
  });

  it("takes an event first seen before the channel fetched those nights (or at the same instant) for a sale", () => {
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(-1))).toBeNull();
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(0))).toBeNull();
  });

  it("judges by what the URL served last before the event was first seen: nights it stopped serving were open again", () => {
    // A cancelled at hour 4: the fetch at hour 5 no longer serves its nights, and Booking.com resells them.
    const fetches = [...airbnbStay, fetched(["booking"], 5, [served("rsv_Z", "2027-03-25", "2027-03-27")])];
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(6, fetches))).toBeNull();
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(3, fetches))).toBe("rsv_A");
  });

  it("keeps serving the same body for as long as the channel polls it, but not from a URL unfetched for over a week", () => {
    const polled = [fetched(["booking"], 0, [served("rsv_A", "2027-03-10", "2027-03-15")], 24 * 30)];
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(24 * 30 + 1, polled))).toBe("rsv_A");
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(24 * 6))).toBe("rsv_A");
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(24 * 8))).toBeNull();
  });

  it("names the reservation of the most recent URL's body when two URLs excluding the source served the nights", () => {
    const fetches = [
      fetched(["booking"], 0, [served("rsv_old", "2027-03-10", "2027-03-15")]),
      fetched(["booking", "vrbo"], 2, [served("rsv_new", "2027-03-10", "2027-03-15")]),
    ];
    expect(echoOf(nights("2027-03-10", "2027-03-15"), booking(3, fetches))).toBe("rsv_new");
  });
});

const event = (uid: string, start: string, end: string, extra: Partial<FeedEvent> = {}): FeedEvent => ({
  uid, kind: "booking", start, end, summary: "CLOSED - Not available", cancelled: false, details: {}, raw: {}, ...extra,
});
const row = (uid: string, arrival: string, departure: string, extra: Partial<StoredReservation> = {}): StoredReservation => ({
  id: `rsv_${uid}`, calendarId: "cal_b", uid, kind: "booking", status: "active", start: arrival, end: departure,
  summary: "CLOSED - Not available", details: {}, arrival, departure, eventZone: null, echoOf: null, nightsSeenAt: iso(-10), ...extra,
});

describe("markEchoes", () => {
  it("turns an echo into a block naming its original, and leaves a sale as it is", () => {
    const echo = event("e", "2027-03-10", "2027-03-15");
    const sale = event("s", "2027-03-20", "2027-03-22");
    const [marked, kept] = markEchoes([echo, sale], { ...booking(1), stored: [] });
    expect(marked).toEqual({ ...echo, kind: "block", echoOf: "rsv_A" });
    expect(kept).toBe(sale);
  });

  it("keeps the verdict of a stored row whose nights did not change, whatever the fetch log says now", () => {
    const stored = [
      row("e", "2027-03-10", "2027-03-15", { kind: "block", echoOf: "rsv_A" }),
      row("s", "2027-03-10", "2027-03-15"),
    ];
    // The echo stays one with no fetch left in the log; the sale seen before the fetch stays a sale.
    const [echo] = markEchoes([event("e", "2027-03-10", "2027-03-15")], { ...booking(1, []), stored });
    expect(echo).toMatchObject({ kind: "block", echoOf: "rsv_A" });
    const [sale] = markEchoes([event("s", "2027-03-10", "2027-03-15")], { ...booking(1), stored });
    expect(sale).toMatchObject({ kind: "booking" });
    expect(sale!.echoOf).toBeUndefined();
  });

  it("judges a stored row again when its nights move or it comes back from cancelled: those nights are first seen now", () => {
    const moved = [row("e", "2027-03-09", "2027-03-15", { kind: "block", echoOf: "rsv_X" })];
    expect(markEchoes([event("e", "2027-03-10", "2027-03-15")], { ...booking(1), stored: moved })[0]).toMatchObject({ echoOf: "rsv_A" });
    expect(markEchoes([event("e", "2027-03-11", "2027-03-15")], { ...booking(1), stored: moved })[0]!.echoOf).toBeUndefined();
    const back = [row("e", "2027-03-10", "2027-03-15", { status: "cancelled" })];
    expect(markEchoes([event("e", "2027-03-10", "2027-03-15")], { ...booking(1), stored: back })[0]).toMatchObject({ kind: "block", echoOf: "rsv_A" });
  });

  it("keeps the verdict of the row a re-issued UID takes over (its old UID gone, exactly its nights): first seen under the old UID", () => {
    // b1 was sold before Booking.com fetched those nights (a real double booking with rsv_A); Booking.com then re-issues it.
    const sale = [row("b1", "2027-03-10", "2027-03-15")];
    const [reissuedSale] = markEchoes([event("b2", "2027-03-10", "2027-03-15")], { ...booking(1), stored: sale });
    expect(reissuedSale).toMatchObject({ kind: "booking" });
    expect(reissuedSale!.echoOf).toBeUndefined();
    // An echo re-issued after the feed stopped serving its nights (rsv_A cancelled) stays an echo, never a sale served to Airbnb.
    const echo = [row("e1", "2027-03-10", "2027-03-15", { kind: "block", echoOf: "rsv_A" })];
    expect(markEchoes([event("e2", "2027-03-10", "2027-03-15")], { ...booking(1, []), stored: echo })[0]).toMatchObject({ kind: "block", echoOf: "rsv_A" });
    // Only one to one, as the diff pairs: with two vanished rows on those nights the new UID is judged as new.
    const twins = [...sale, row("b3", "2027-03-10", "2027-03-15")];
    expect(markEchoes([event("b2", "2027-03-10", "2027-03-15")], { ...booking(1), stored: twins })[0]).toMatchObject({ echoOf: "rsv_A" });
    // An old UID still in the feed re-issues nothing.
    expect(markEchoes([event("b1", "2027-03-10", "2027-03-15", { cancelled: true }), event("b2", "2027-03-10", "2027-03-15")], { ...booking(1), stored: sale })[1])
      .toMatchObject({ echoOf: "rsv_A" });
  });

  it("keeps a double booking when the channel re-issues its sale's UID: one update, still a booking, not cancel + echo", () => {
    const stored = [row("b1", "2027-03-10", "2027-03-15"), row("b9", "2027-04-01", "2027-04-03")];
    const feed = [event("b2", "2027-03-10", "2027-03-15"), event("b9", "2027-04-01", "2027-04-03")];
    const diff = diffReservations(stored, markEchoes(feed, { ...booking(1), stored }), { now: at(1) });
    expect(diff.counts).toEqual({ found: 2, created: 0, updated: 1, cancelled: 0 });
    expect(diff.updates.map(({ id, event }) => [id, event.uid, event.kind, event.echoOf])).toEqual([["rsv_b1", "b2", "booking", undefined]]);
  });

  it("leaves a cancelled event alone, and reads a timed event's nights in the property's zone", () => {
    const cancelled = event("c", "2027-03-10", "2027-03-15", { cancelled: true });
    expect(markEchoes([cancelled], { ...booking(1), stored: [] })[0]).toBe(cancelled);
    // 16:00 on 10 March in Los Angeles is already the 11th in UTC.
    const timed = event("t", "2027-03-11T00:00:00.000Z", "2027-03-15T17:00:00.000Z", { zone: "America/Los_Angeles" });
    expect(markEchoes([timed], { ...booking(1), stored: [], timeZone: "America/Los_Angeles" })[0]).toMatchObject({ echoOf: "rsv_A" });
    expect(markEchoes([timed], { ...booking(1), stored: [], timeZone: "Europe/Lisbon" })[0]!.echoOf).toBeUndefined();
  });
});

describe("the outbound feed and echoes", () => {
  const reservations: OutboundReservation[] = [
    { id: "rsv_A", source: "airbnb", arrival: "2027-03-10", departure: "2027-03-15", kind: "booking", status: "active", echoOf: null },
    { id: "rsv_E", source: "booking", arrival: "2027-03-10", departure: "2027-03-15", kind: "block", status: "active", echoOf: "rsv_A" },
    { id: "rsv_S", source: "booking", arrival: "2027-03-20", departure: "2027-03-22", kind: "booking", status: "active", echoOf: null },
  ];

  it("never serves an echo: to Airbnb it would send its own stay back through Booking.com", () => {
    expect(servedReservations(reservations, ["airbnb"]).map((r) => r.id)).toEqual(["rsv_S"]);
    expect(servedReservations(reservations).map((r) => r.id)).toEqual(["rsv_A", "rsv_S"]);
    const body = buildOutboundFeed({ propertyId: "prp_1", propertyName: "Loft", reservations, exclude: ["airbnb"], now: at(0) });
    expect(body).not.toContain("rsv_E@calsync");
    expect(body).not.toContain("DTSTART;VALUE=DATE:20270310");
    expect(body).toContain("UID:rsv_S@calsync");
  });

  it("logs of a served feed only the nights that have not ended", () => {
    expect(fetchedNights(servedReservations(reservations), "2027-03-15")).toEqual([served("rsv_S", "2027-03-20", "2027-03-22")]);
    expect(fetchedNights(servedReservations(reservations), "2027-03-14")).toEqual([
      served("rsv_A", "2027-03-10", "2027-03-15"),
      served("rsv_S", "2027-03-20", "2027-03-22"),
    ]);
  });
});
