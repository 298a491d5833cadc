// One calendar's fetch, politely (CONTRACT §4): nothing is sent to a host that asked calsync to wait, and a
// 429 or 503 with Retry-After makes every run of the process, and every process on the store, wait too.
import { fetchFeed, type FetchFeedResult } from "./fetch-feed.js";
import { throttledError, type HostBackoffs } from "./host-backoff.js";
import type { CalendarRecord } from "./model.js";
import type { SyncStore } from "./store-port.js";
import type { CalendarSource } from "../types.js";
import { isWriteFault } from "./write-fault.js";

/** One feed fetch, as `onFeedFetched` reports it. */
export interface FeedFetch {
  source: CalendarSource;
  outcome: FetchFeedResult["kind"];
  durationMs: number;
}

/** What fetching one calendar needs of the run. */
export interface CalendarFetchContext {
  store: SyncStore;
  backoffs: HostBackoffs;
  clock: () => Date;
  /** Keep the host's wait in memory only (a dry run writes nothing). */
  dryRun?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  maxBytes?: number;
  allowPrivateNetworks?: boolean;
  onFeedFetched?: (fetch: FeedFetch) => void;
}

/** Fetches one calendar's feed (inside its limiter slot), or fails it with `throttled` without a request. */
export async function fetchCalendar(calendar: CalendarRecord, host: string, context: CalendarFetchContext): Promise<FetchFeedResult> {
  if (context.signal?.aborted) return { kind: "error", error: { code: "fetch_failed", message: "not fetched: the sync was stopped" } };
  const wait = context.backoffs.remaining(host, context.clock());
  if (wait > 0) return { kind: "error", error: throttledError(host, wait) };
  const started = performance.now();
  const result = await fetchFeed(calendar.url, {
    etag: calendar.etag,
    lastModified: calendar.lastModified,
    timeoutMs: context.timeoutMs,
    signal: context.signal,
    maxBytes: context.maxBytes,
    allowPrivateNetworks: context.allowPrivateNetworks,
  });
  context.onFeedFetched?.({ source: calendar.source, outcome: result.kind, durationMs: performance.now() - started });
  const retryAfter = result.kind === "error" ? result.error.retryAfter : undefined;
  if (retryAfter) {
    const until = new Date(context.clock().getTime() + retryAfter * 1000);
    context.backoffs.hold(host, until);
    // A disk that cannot take this row still leaves the wait held in this process.
    if (!context.dryRun) await context.store.holdHost(host, until).catch((error: unknown) => {
      if (!isWriteFault(error)) throw error;
    });
  }
  return result;
}

/** The host a feed URL's fetch slots and back-off are counted under: `host[:port]`, lower case. */
export function hostOf(url: string): string {
  try {
    return new URL(url.trim().replace(/^webcals?:/i, "https:")).host.toLowerCase();
  } catch {
    return "";
  }
}
