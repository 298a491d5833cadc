// What each channel has seen (CONTRACT §17), pure: from a link's reads, the nights its last read served and the
// property's reservations now, its exposed and freed nights, status and usual interval.
import type { Channel, ChannelStatus, ExposedNight } from "../channel-types.js";
import type { ReservationSource } from "../resource-types.js";
import type { CalendarSource } from "../types.js";
import type { ServedNights } from "./echoes.js";
import { addDays } from "./nights.js";
import { servedReservations, type OutboundReservation } from "./outbound-feed.js";

/** How far back reads count for `reads7d` and the usual interval. */
export const CHANNEL_WINDOW_MS = 7 * 86_400_000;

/** Default of `serve --channel-stale-after`: 24 h. */
export const DEFAULT_CHANNEL_STALE_AFTER_MS = 86_400_000;

/** An active reservation as the channel view needs it. */
export interface ChannelReservationInput extends OutboundReservation {
  source: CalendarSource;
  /** When calsync first stored it (ISO). */
  createdAt: string;
}

/** What `channelView` reads of one link. */
export interface ChannelInput {
  source: CalendarSource;
  url: string | null;
  /** When the first calendar of this source was added to the property (ISO): reads before it do not count. */
  addedAt: string;
  firstReadAt: string | null;
  lastReadAt: string | null;
  userAgent: string | null;
  /** Read times (ISO), any order; those older than 7 days are ignored. The latest hundred are enough. */
  readTimes: readonly string[];
  /** Reads in the 7 days, when the store counted them (it keeps only the latest times here); else readTimes'. */
  readCount?: number;
  /** The nights the link's last full read served (the fetch log), null when none is known. */
  lastServed: readonly ServedNights[] | null;
}

/** The property's side of `channelView`. */
export interface ChannelContext {
  /** Active reservations of every calendar of the property, direct stays included. */
  reservations: readonly ChannelReservationInput[];
  /** Today in the property's zone, `YYYY-MM-DD`. */
  today: string;
  now: Date;
  staleAfterMs: number;
}

/** One link as `GET /api/v1/properties/{id}/channels` answers it. */
export function channelView(link: ChannelInput, context: ChannelContext): Channel {
  const now = context.now.getTime();
  const read = link.lastReadAt !== null && Date.parse(link.lastReadAt) >= Date.parse(link.addedAt);
  const times = link.readTimes.map(Date.parse).filter((t) => t >= now - CHANNEL_WINDOW_MS && t <= now).sort((a, b) => a - b);
  const usual = usualIntervalSeconds(times);
  const { exposed, freed } = read && link.lastServed ? nightsDiff(link.source, link.lastServed, context) : { exposed: [], freed: [] };
  return {
    source: link.source,
    url: link.url,
    status: statusOf(read ? Date.parse(link.lastReadAt!) : null, exposed.length, now, context.staleAfterMs),
    lastReadAt: read ? link.lastReadAt : null,
    firstReadAt: read ? link.firstReadAt : null,
    reads7d: link.readCount ?? times.length,
    usualIntervalSeconds: usual,
    expectedBy: read && usual !== null ? new Date(Date.parse(link.lastReadAt!) + usual * 1000).toISOString() : null,
    userAgent: read ? link.userAgent : null,
    exposedNights: exposed,
    freedNights: freed,
  };
}

/** The first status that applies (CONTRACT §17). */
export function statusOf(lastRead: number | null, exposed: number, now: number, staleAfterMs: number): ChannelStatus {
  if (lastRead === null) return "never";
  if (now - lastRead > staleAfterMs) return "stale";
  return exposed > 0 ? "behind" : "current";
}

/** The median gap between sorted read times, in whole seconds; null below 3 reads. */
export function usualIntervalSeconds(sortedTimes: readonly number[]): number | null {
  if (sortedTimes.length < 3) return null;
  const gaps = sortedTimes.slice(1).map((t, i) => t - sortedTimes[i]!).sort((a, b) => a - b);
  const mid = gaps.length >> 1;
  const median = gaps.length % 2 ? gaps[mid]! : (gaps[mid - 1]! + gaps[mid]!) / 2;
  return Math.round(median / 1000);
}

/** Nights from today on that the link serves taken now but its last read served free, and the other way round. */
function nightsDiff(source: CalendarSource, lastServed: readonly ServedNights[], context: ChannelContext): { exposed: ExposedNight[]; freed: string[] } {
  const seen = new Set<string>();
  for (const served of lastServed) for (const date of nightsOf(served, context.today)) seen.add(date);
  const taken = new Map<string, ExposedNight>();
  // The earliest stored reservation names a night two of them cover.
  const now = servedReservations(context.reservations, [source]).sort((a, b) => compare(a.createdAt, b.createdAt) || compare(a.id, b.id));
  for (const r of now) {
    for (const date of nightsOf(r, context.today)) {
      if (!taken.has(date)) taken.set(date, { date, reservationId: r.id, source: r.source as ReservationSource, since: r.createdAt });
    }
  }
  const exposed = [...taken.values()].filter((n) => !seen.has(n.date)).sort((a, b) => compare(a.date, b.date));
  const freed = [...seen].filter((date) => !taken.has(date)).sort();
  return { exposed, freed };
}

// A stay's nights from today on; each stay's are walked once however many links ask (a property's 5 links share them).
const walked = new WeakMap<object, { today: string; dates: string[] }>();
function nightsOf(nights: { arrival: string; departure: string }, today: string): string[] {
  const known = walked.get(nights);
  if (known?.today === today) return known.dates;
  const dates: string[] = [];
  for (let date = nights.arrival < today ? today : nights.arrival; date < nights.departure; date = addDays(date, 1)) dates.push(date);
  walked.set(nights, { today, dates });
  return dates;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Whether the properties overview marks this link: never read, stale, or behind for longer than its usual
 * interval (a channel reading on schedule soon closes what it has not seen; without a usual interval, at once).
 */
export function needsAttention(channel: Channel, now: Date): boolean {
  if (channel.status === "never" || channel.status === "stale") return true;
  if (channel.status !== "behind") return false;
  const oldest = Math.min(...channel.exposedNights.map((n) => Date.parse(n.since)));
  return now.getTime() - oldest > (channel.usualIntervalSeconds ?? 0) * 1000;
}
