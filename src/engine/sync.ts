// syncOwner(): the whole run on one screen — load, fetch, parse, diff, write, report.
import { createHash } from "node:crypto";
import type { CalendarSource, SyncError, SyncResponse, SyncResultEntry } from "../types.js";
import { findPropertyConflicts } from "./conflicts.js";
import { diffReservations } from "./diff.js";
import { fetchFeed } from "./fetch-feed.js";
import { createFetchLimiter, type FetchLimiter } from "./fetch-limiter.js";
import { explainHtmlAnswer } from "./html-answer.js";
import { formatDate } from "./local-date.js";
import type { CalendarRecord, SyncTrigger } from "./model.js";
import { parseFeed } from "./parse-feed.js";
import type { SyncStore } from "./store-port.js";

/** Options of one sync run; each door builds this from its flags and environment. */
export interface SyncOwnerOptions {
  store: SyncStore;
  ownerId: string;
  /** Apply changes even when the mass-cancellation guard trips. @default false */
  force?: boolean;
  /**
   * Compute and report without writing anything, not even the history. Its `conflicts` are those of
   * what is stored, not of what the run would have written. @default false
   */
  dryRun?: boolean;
  /** Let feed URLs reach loopback and private addresses. @default false */
  allowPrivateNetworks?: boolean;
  /** Fetch limits; share one limiter between concurrent runs. @default 8 at once, 2 per host */
  limiter?: FetchLimiter;
  /** Deadline of one feed fetch, in milliseconds. @default 20000 */
  timeoutMs?: number;
  /** Largest feed body accepted, in bytes after decompression. @default 10 MiB */
  maxBytes?: number;
  /** Id the run is recorded under (single flight across processes reads its response by it). @default a new id */
  runId?: string;
  /** What started the run, kept in the sync history. @default "cli" */
  trigger?: SyncTrigger;
  /** Clock, for tests. @default () => new Date() */
  now?: () => Date;
  /** Called after each calendar finishes. */
  onProgress?: (progress: SyncProgress) => void;
}

/** Progress of a run, reported after each calendar. */
export interface SyncProgress {
  done: number;
  total: number;
  propertyName: string;
  source: CalendarSource;
  ok: boolean;
}

/** Synchronises every calendar of one owner and returns the Sync response of API v1. */
export async function syncOwner(options: SyncOwnerOptions): Promise<SyncResponse> {
  const clock = options.now ?? (() => new Date());
  const startedAt = clock();
  const t0 = performance.now();
  const limiter = options.limiter ?? createFetchLimiter();
  const { propertiesChecked, calendars } = await options.store.ownerCalendars(options.ownerId);

  let done = 0;
  // Settle every calendar before anything is reported or thrown: a store fault in one calendar must not
  // end the run while others are still writing (a caller would think the owner idle and start again).
  const settled = await Promise.allSettled(
    calendars.map(async (calendar) => {
      const entry = await syncCalendar(calendar, options, limiter, clock);
      options.onProgress?.({
        done: ++done,
        total: calendars.length,
        propertyName: calendar.propertyName,
        source: calendar.source,
        ok: entry.ok,
      });
      return entry;
    }),
  );
  const fault = settled.find((outcome) => outcome.status === "rejected");
  if (fault) throw fault.reason;
  const results = settled.map((outcome) => (outcome as PromiseFulfilledResult<SyncResultEntry>).value);

  // Read back after every calendar is written, so a booking one channel sold during this run counts.
  const conflicts = await findPropertyConflicts(
    (propertyId) => options.store.propertyActiveBookings(propertyId),
    calendars.map((calendar) => calendar.propertyId),
    { today: formatDate(clock()) },
  );
  const failed = results.filter((entry) => !entry.ok).length;
  const response: SyncResponse = {
    ok: failed === 0,
    syncedCalendars: results.length,
    propertiesChecked,
    failed,
    durationMs: Math.round(performance.now() - t0),
    results,
    // Additive to v1: absent rather than empty, so a v1 response without double bookings is unchanged.
    ...(conflicts.length > 0 ? { conflicts } : {}),
  };
  if (!options.dryRun) {
    await options.store.recordSyncRun({
      id: options.runId,
      ownerId: options.ownerId,
      trigger: options.trigger ?? "cli",
      dryRun: false,
      startedAt,
      calendarIds: calendars.map((calendar) => calendar.id),
      response,
    });
  }
  return response;
}

async function syncCalendar(
  calendar: CalendarRecord,
  options: SyncOwnerOptions,
  limiter: FetchLimiter,
  clock: () => Date,
): Promise<SyncResultEntry> {
  const { store } = options;
  const fail = async (error: SyncError): Promise<SyncResultEntry> => {
    if (!options.dryRun) await store.recordCalendarFailure({ calendarId: calendar.id, error, failedAt: clock() });
    return entryOf(calendar, { found: 0, created: 0, updated: 0, cancelled: 0 }, error);
  };

  const fetched = await limiter.run(hostOf(calendar.url), () =>
    fetchFeed(calendar.url, {
      etag: calendar.etag,
      lastModified: calendar.lastModified,
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxBytes,
      allowPrivateNetworks: options.allowPrivateNetworks,
    }),
  );
  if (fetched.kind === "error") return fail(fetched.error);

  const unchanged = { found: calendar.lastFound, created: 0, updated: 0, cancelled: 0 };
  const keepState = async (etag: string | null, lastModified: string | null) => {
    if (options.dryRun) return;
    await store.applyCalendarSync({
      calendarId: calendar.id,
      inserts: [],
      updates: [],
      cancels: [],
      feed: { etag, lastModified, contentHash: calendar.contentHash, lastFound: calendar.lastFound },
      syncedAt: clock(),
    });
  };
  // A 304 or a byte-identical body cannot change anything: report the stored state.
  if (fetched.kind === "not_modified") {
    await keepState(calendar.etag, calendar.lastModified);
    return entryOf(calendar, unchanged);
  }
  const contentHash = fingerprint(fetched.body, clock());
  if (contentHash === calendar.contentHash) {
    await keepState(fetched.etag, fetched.lastModified);
    return entryOf(calendar, unchanged);
  }

  const now = clock();
  const parsed = parseFeed(fetched.body, { source: calendar.source, now });
  if (!parsed.ok) {
    return fail(explainHtmlAnswer(parsed.error, { body: fetched.body, source: calendar.source, urls: [calendar.url, fetched.finalUrl] }));
  }

  const stored = await store.calendarReservations(calendar.id);
  const diff = diffReservations(stored, parsed.events, { now, force: options.force });
  if (diff.suspicious) {
    const { cancelling, upcoming } = diff.suspicious;
    return fail({
      code: "suspicious_feed",
      message: `feed would cancel ${cancelling} of ${upcoming} upcoming reservations; nothing was changed (force to apply)`,
    });
  }
  if (!options.dryRun) {
    await store.applyCalendarSync({
      calendarId: calendar.id,
      inserts: diff.inserts,
      updates: diff.updates,
      cancels: diff.cancels,
      feed: { etag: fetched.etag, lastModified: fetched.lastModified, contentHash, lastFound: diff.counts.found },
      syncedAt: now,
    });
  }
  return entryOf(calendar, diff.counts);
}

function entryOf(
  calendar: CalendarRecord,
  counts: { found: number; created: number; updated: number; cancelled: number },
  error?: SyncError,
): SyncResultEntry {
  return {
    propertyId: calendar.propertyId,
    propertyName: calendar.propertyName,
    source: calendar.source,
    ok: !error,
    result: {
      status: error ? "failed" : "success",
      reservationsFound: counts.found,
      reservationsCreated: counts.created,
      reservationsUpdated: counts.updated,
      reservationsCancelled: counts.cancelled,
      ...(error ? { error } : {}),
    },
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url.replace(/^webcals?:/i, "https:")).host.toLowerCase();
  } catch {
    return "";
  }
}

// Bump when parsing or channel rules change, so an upgrade re-reads feeds whose bytes did not change.
const RULES_VERSION = 1;

/**
 * Identifies a body as parsed on one day: recurring events expand relative to today, so an
 * unchanged body is parsed again once a day and its window rolls forward.
 */
function fingerprint(body: string, now: Date): string {
  return createHash("sha256").update(`calsync-rules-${RULES_VERSION}\n${formatDate(now)}\n`).update(body).digest("hex");
}
