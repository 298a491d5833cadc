// Echoes (CONTRACT §8): two-way sync makes a channel re-export what calsync's feed told it. Booking.com
// imports `…/ical/<token>.ics?exclude=booking`, closes the nights Airbnb sold, and exports them again as
// "CLOSED - Not available", the very words of its own sales. Told apart here by what the feed served
// and when calsync first saw the event's nights. Pure: the store hands in the fetch log and the rows.
//
// Decisions (see docs/two-way-sync.md):
// - Exact nights only: one served event, or a run of served events that touch or overlap (a channel
//   may merge them into one closed range); the echo names the run's first reservation.
// - The content that counts is what each URL (each `exclude` set containing the source) served *last*
//   before the event's nights were first seen: nights the feed had stopped serving by then were open
//   again on that channel, so an event on them is a sale (an Airbnb stay cancelled, its nights resold on
//   Booking.com).
// - A URL last fetched more than ECHO_FETCH_WINDOW_MS before the event was first seen is no longer
//   imported by its channel (the owner removed the import): it echoes nothing any more.
// - The verdict is taken once, when the event's nights are first seen, and kept while they stay: an
//   echo stays an echo when its original is cancelled and the channel still exports it, a sale stays a
//   sale when the feed later serves its nights.
import type { CalendarSource } from "../types.js";
import type { FeedEvent, Nights, StoredReservation } from "./model.js";
import { datedEvent } from "./nights.js";
import { runAtOnce, runInSlices } from "./slices.js";
import type { OutboundEvent, OutboundReservation } from "./outbound-feed.js";

/** One event of the outbound feed as served: the reservation behind its UID (`<id>@calsync`) and its nights. */
export interface ServedNights extends Nights {
  reservationId: string;
}

/** What one outbound feed URL served, as the fetch log keeps it: one record per distinct body in a row. */
export interface OutboundFetchRecord {
  /** The fetch's `exclude` sources. */
  exclude: CalendarSource[];
  /** ISO time of the first fetch served this body. */
  firstFetchedAt: string;
  /** ISO time of the latest fetch served this body (a 304 included). */
  lastFetchedAt: string;
  /** How many fetches were served this body. */
  fetches: number;
  /** The nights served that had not ended at the first fetch. */
  nights: ServedNights[];
}

/** A URL not fetched for this long is no longer imported by its channel: 7 days. */
export const ECHO_FETCH_WINDOW_MS = 7 * 86_400_000;

/** What `echoOf` and `markEchoes` compare an event with. */
export interface EchoContext {
  /** The channel of the calendar the events come from. */
  source: CalendarSource;
  /** When the feed holding the events was requested: their new nights are first seen then. */
  seenAt: Date;
  /** The property's outbound fetch log (`SyncStore.propertyOutboundFetches`). */
  fetches: readonly OutboundFetchRecord[];
}

/**
 * The id of the reservation whose nights `nights` repeat, when an event with these nights, first seen at
 * `seenAt` on a calendar of `source`, is an echo (CONTRACT §8); null when it is not.
 */
export function echoOf(nights: Nights, context: EchoContext): string | null {
  const seen = context.seenAt.getTime();
  const latest = new Map<string, OutboundFetchRecord>();
  for (const fetch of context.fetches) {
    if (!fetch.exclude.includes(context.source) || !(Date.parse(fetch.firstFetchedAt) < seen)) continue;
    const key = [...fetch.exclude].sort().join(",");
    const before = latest.get(key);
    if (!before || Date.parse(before.firstFetchedAt) < Date.parse(fetch.firstFetchedAt)) latest.set(key, fetch);
  }
  let found: { id: string; at: number } | null = null;
  for (const fetch of latest.values()) {
    if (Date.parse(fetch.lastFetchedAt) < seen - ECHO_FETCH_WINDOW_MS) continue;
    const id = servedMatch(fetch.nights, nights);
    const at = Date.parse(fetch.firstFetchedAt);
    if (id !== null && (!found || found.at < at)) found = { id, at };
  }
  return found?.id ?? null;
}

/**
 * `events` with their echoes marked `kind: "block"` with `echoOf`. An event whose stored row (same UID) is
 * active with the same nights keeps that row's verdict; so does a re-issued UID (CONTRACT §8: the only new
 * UID with exactly the nights of the only active row whose UID left the feed), whose nights were first seen
 * under its old UID. Any other is judged by `echoOf`, first seen now.
 */
export function markEchoes(events: readonly FeedEvent[], context: MarkEchoesContext): FeedEvent[] {
  return runAtOnce(echoSteps(events, context));
}

/** `markEchoes`, letting the event loop turn every few milliseconds (a server reading a 20,000-event feed). */
export function markEchoesInSlices(events: readonly FeedEvent[], context: MarkEchoesContext): Promise<FeedEvent[]> {
  return runInSlices(echoSteps(events, context));
}

/** What `markEchoes` compares events with: the fetch log, and the calendar's stored rows and property zone. */
export type MarkEchoesContext = EchoContext & { stored: readonly StoredReservation[]; timeZone?: string | null };

function* echoSteps(events: readonly FeedEvent[], context: MarkEchoesContext): Generator<void, FeedEvent[]> {
  // No fetch of this channel's exclude set in the log: `echoOf` finds nothing, and only a row that is an
  // echo already can keep that verdict, so no other event needs its nights read (most calendars, most runs).
  const logged = context.fetches.some((fetch) => fetch.exclude.includes(context.source));
  if (!logged && !context.stored.some((row) => (row.echoOf ?? null) !== null)) return [...events];
  const rows = new Map<string, StoredReservation>();
  for (const row of context.stored) if (!rows.has(row.uid)) rows.set(row.uid, row);
  const reissued = reissuedRows(events, rows, context.timeZone);
  const marked: FeedEvent[] = [];
  for (const event of events) {
    if (marked.length % 256 === 255) yield;
    const row = rows.get(event.uid) ?? reissued.get(event.uid);
    if (event.cancelled || (!logged && (row?.echoOf ?? null) === null)) {
      marked.push(event);
      continue;
    }
    const nights = datedEvent(event, context.timeZone);
    const same = row?.status === "active" && row.arrival === nights.arrival && row.departure === nights.departure;
    const original = same ? (row.echoOf ?? null) : echoOf(nights, context);
    marked.push(original === null ? event : { ...event, kind: "block", echoOf: original });
  }
  return marked;
}

/**
 * New UIDs → the vanished row each re-issues, paired one to one by exact nights as the diff pairs them, so
 * that a sale keeps being a sale (and an echo an echo) when its channel gives it a new UID.
 */
function reissuedRows(events: readonly FeedEvent[], rows: ReadonlyMap<string, StoredReservation>, timeZone?: string | null) {
  const inFeed = new Set(events.map((event) => event.uid));
  const vanished = new Map<string, StoredReservation[]>();
  for (const row of rows.values()) {
    if (row.status !== "active" || inFeed.has(row.uid)) continue;
    const key = `${row.arrival} ${row.departure}`;
    vanished.set(key, [...(vanished.get(key) ?? []), row]);
  }
  const fresh = new Map<string, string[]>();
  for (const event of events) {
    if (event.cancelled || rows.has(event.uid)) continue;
    const { arrival, departure } = datedEvent(event, timeZone);
    const key = `${arrival} ${departure}`;
    fresh.set(key, [...(fresh.get(key) ?? []), event.uid]);
  }
  const pairs = new Map<string, StoredReservation>();
  for (const [key, uids] of fresh) {
    const candidates = vanished.get(key);
    if (uids.length === 1 && candidates?.length === 1) pairs.set(uids[0]!, candidates[0]!);
  }
  return pairs;
}

/** What the fetch log keeps of a served feed: the nights of `served` (in feed order) that have not ended by `today`. */
export function fetchedNights(served: readonly (OutboundReservation | OutboundEvent)[], today: string): ServedNights[] {
  return served
    .filter((r) => r.departure > today)
    .map((r) => ({ reservationId: "reservationId" in r ? r.reservationId : r.id, arrival: r.arrival, departure: r.departure }));
}

/** The reservation behind one served event with exactly `nights`, else behind the first of a run that covers exactly them. */
function servedMatch(served: readonly ServedNights[], nights: Nights): string | null {
  const sorted = [...served].sort((a, b) => compare(a.arrival, b.arrival) || compare(a.reservationId, b.reservationId));
  const exact = sorted.find((s) => s.arrival === nights.arrival && s.departure === nights.departure);
  if (exact) return exact.reservationId;
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i]!.arrival !== nights.arrival) continue;
    let end = sorted[i]!.departure;
    // Extend while the next event starts on or before the run's last departure (no free night between).
    for (let j = i + 1; j < sorted.length && end < nights.departure && sorted[j]!.arrival <= end; j++) {
      if (sorted[j]!.departure > end) end = sorted[j]!.departure;
    }
    if (end === nights.departure) return sorted[i]!.reservationId;
  }
  return null;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
