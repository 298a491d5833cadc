// previewFeed(): what a sync would import from a feed, fetched and read exactly as a sync does
// (same guarded fetcher, same parser, same hints), without a store: nothing is written anywhere.
import type { CalendarSource, SyncError, SyncWarning } from "../types.js";
import { detectSource } from "./channels.js";
import { fetchFeed } from "./fetch-feed.js";
import { explainHtmlAnswer } from "./html-answer.js";
import type { FeedEvent } from "./model.js";
import { addDays, stayNights, takesNoNight } from "./nights.js";
import { parseFeed } from "./parse-feed.js";
import { unreadableWarnings } from "./unreadable-events.js";

/** What a sync would import (CONTRACT §6, `calsync calendar test --json`). */
export interface FeedPreview {
  source: CalendarSource;
  /** Non-cancelled events of kind `booking`. */
  bookings: number;
  /** Non-cancelled events of kind `block`. */
  blocks: number;
  /** First night of the earliest event, `YYYY-MM-DD`; null when there is none. */
  firstNight: string | null;
  /** The night before the latest check-out, `YYYY-MM-DD`; null when there is none. */
  lastNight: string | null;
  warnings: SyncWarning[];
}

/** A readable feed's preview, or the error a sync would fail the calendar with. */
export type FeedPreviewResult = { ok: true; preview: FeedPreview } | { ok: false; source: CalendarSource; error: SyncError };

/** Options of `previewFeed`. */
export interface PreviewFeedOptions {
  /** The channel; decides `kind`. @default detected from the URL's host */
  source?: CalendarSource;
  /** Let the feed reach loopback and private addresses. @default false */
  allowPrivateNetworks?: boolean;
  /** Deadline of the fetch, in milliseconds. @default 20000 */
  timeoutMs?: number;
  /** Largest body accepted, in bytes after decompression. @default 10 MiB */
  maxBytes?: number;
  /** Clock (recurring events expand around it). @default () => new Date() */
  now?: () => Date;
}

/** Fetches and reads `url` as a sync of a new calendar would, and summarises what it would import. */
export async function previewFeed(url: string, options: PreviewFeedOptions = {}): Promise<FeedPreviewResult> {
  const source = options.source ?? detectSource(url);
  const fetched = await fetchFeed(url, {
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    allowPrivateNetworks: options.allowPrivateNetworks,
  });
  if (fetched.kind === "error") return { ok: false, source, error: fetched.error };
  // Without validators sent, fetchFeed reports a 304 as an http_error; this keeps the types whole.
  if (fetched.kind === "not_modified") {
    return { ok: false, source, error: { code: "http_error", message: "feed answered HTTP 304", httpStatus: 304 } };
  }

  const parsed = parseFeed(fetched.body, { source, now: (options.now ?? (() => new Date()))() });
  if (!parsed.ok) {
    return { ok: false, source, error: explainHtmlAnswer(parsed.error, { body: fetched.body, source, urls: [url, fetched.finalUrl] }) };
  }
  return { ok: true, preview: { source, ...summarise(parsed.events), warnings: unreadableWarnings(parsed.unreadable) } };
}

function summarise(events: readonly FeedEvent[]): Omit<FeedPreview, "source" | "warnings"> {
  const active = events.filter((event) => !event.cancelled && !takesNoNight(event));
  let firstNight: string | null = null;
  let checkOut: string | null = null;
  for (const event of active) {
    // No property yet: timed stays are read in the event's own zone, as a property without one would.
    const { arrival, departure } = stayNights(event.start, event.end, { event: event.zone });
    if (firstNight === null || arrival < firstNight) firstNight = arrival;
    if (checkOut === null || departure > checkOut) checkOut = departure;
  }
  return {
    bookings: active.filter((event) => event.kind === "booking").length,
    blocks: active.filter((event) => event.kind === "block").length,
    firstNight,
    lastNight: checkOut === null ? null : addDays(checkOut, -1),
  };
}
