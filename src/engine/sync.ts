// syncOwner(): the whole run on one screen — load, fetch, parse, diff, write, report.
import type { CalendarSource, SyncError, SyncResponse, SyncResultEntry, SyncWarning } from "../types.js";
import { fetchCalendar, hostOf, type FeedFetch } from "./fetch-calendar.js";
import type { FetchFeedResult } from "./fetch-feed.js";
import { createFetchLimiter, type FetchLimiter, type FetchLimiterOptions } from "./fetch-limiter.js";
import { createHostBackoffs, type HostBackoffs } from "./host-backoff.js";
import { readFeedBody, type ParseText, type ReadFeed } from "./feed-reading.js";
import { explainHtmlAnswer } from "./html-answer.js";
import { formatDate } from "./local-date.js";
import type { CalendarRecord, SyncTrigger } from "./model.js";
import type { ParseFeedOptions, ParseFeedResult } from "./parse-feed.js";
import { settledConflicts } from "./settled-conflicts.js";
import { nextTurn } from "./slices.js";
import { unreadableWarnings } from "./unreadable-events.js";
import type { CalendarStreak, SyncStore } from "./store-port.js";
import { createFailureBatch, createUnchangedBatch, UNCHANGED_BATCH_SIZE, UNCHANGED_FLUSH_MS, type FailureBatch, type UnchangedBatch } from "./unchanged-batch.js";
import { conflictAnnouncements, failureEvents, newReservationIds, runEvents, successEvents } from "./webhook-events.js";
import { ignoreWriteFault, isWriteFault, writeFailed, type WriteFaultError } from "./write-fault.js";

export type { FeedFetch } from "./fetch-calendar.js";

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
  /** Fetch limits; share one limiter between concurrent runs (a server does). @default createFetchLimiter(fetchLimits) */
  limiter?: FetchLimiter;
  /** Limits of the limiter made for this run when `limiter` is left out. @default DEFAULT_FETCH_LIMITS (8 at once, 2 per host for the owner) */
  fetchLimits?: FetchLimiterOptions;
  /**
   * Feed hosts that asked to wait (Retry-After); share one between concurrent runs. Waits stored by other
   * processes are added at the start of the run. @default a new, empty one
   */
  backoffs?: HostBackoffs;
  /** Deadline of one feed fetch, in milliseconds. @default 20000 */
  timeoutMs?: number;
  /**
   * Ends the run early (a server stopping past its grace): fetches in flight are cut and calendars not yet
   * fetched fail without a request; what is written stays whole, one calendar per transaction. @default never
   */
  signal?: AbortSignal;
  /** Largest feed body accepted, in bytes after decompression. @default 10 MiB */
  maxBytes?: number;
  /** Id the run is recorded under (single flight across processes reads its response by it). @default a new id */
  runId?: string;
  /** What started the run, kept in the sync history. @default "cli" */
  trigger?: SyncTrigger;
  /** Clock, for tests. @default () => new Date() */
  now?: () => Date;
  /** Sync only these calendars of the owner (a direct stay's refresh: one property's, not fetched lately). @default every one */
  calendarIds?: ReadonlySet<string>;
  /**
   * A refresh before a direct stay's check (CONTRACT §14), not a sync anyone asked for: a failure is not
   * counted on the calendar (no streak, no `calendar.failed`, no failure mail) and the run is not recorded
   * (no history, no `sync.completed`; a caller waiting for the owner's run runs its own). @default false
   */
  refresh?: boolean;
  /**
   * Unchanged calendars (a 304 or the same body), and failed ones, whose bookkeeping is written in one
   * transaction; 1 writes each in its own, as a changed calendar is. @default UNCHANGED_BATCH_SIZE (100)
   */
  unchangedBatchSize?: number;
  /** Called after each calendar finishes. */
  onProgress?: (progress: SyncProgress) => void;
  /** Called after each feed fetch, e.g. for metrics; the wait for a fetch slot is not counted. */
  onFeedFetched?: (fetch: FeedFetch) => void;
  /**
   * Reads a fetched body: its fingerprint, then its events. A server passes its worker pool's
   * (`createParsePool().read`), which takes the bytes without a copy. @default on this thread, with `parse`
   */
  read?: ReadFeed;
  /** Parses a body's text on this thread's behalf when `read` is left out (the pool's older entry, `pool.parse`). @default parseFeed */
  parse?: (body: string, options: ParseFeedOptions) => Promise<ParseFeedResult>;
}

/** Progress of a run, reported after each calendar. */
export interface SyncProgress {
  done: number;
  total: number;
  calendarId: string;
  propertyName: string;
  source: CalendarSource;
  ok: boolean;
  /** Why the calendar failed, when it did. */
  error?: SyncError;
  /**
   * The calendar's failures in a row after this attempt (0 after a success; unchanged by `throttled`); absent
   * in a dry run and when the failure could not be recorded.
   */
  consecutiveFailures?: number;
  /** On `write_failed`: the database's own words (code and message), for an operator's log, never an API answer. */
  writeFault?: string;
}

/** Synchronises every calendar of one owner and returns the Sync response of API v1. */
export async function syncOwner(options: SyncOwnerOptions): Promise<SyncResponse> {
  const clock = options.now ?? (() => new Date());
  const startedAt = clock();
  const t0 = performance.now();
  const limiter = options.limiter ?? createFetchLimiter(options.fetchLimits);
  const backoffs = options.backoffs ?? createHostBackoffs();
  // Both reads at once: each loads its store module on a first run in the process.
  const [owned, held] = await Promise.all([
    options.store.ownerCalendars(options.ownerId),
    options.store.hostBackoffs(clock()),
  ]);
  const { propertiesChecked } = owned;
  const only = options.calendarIds;
  const calendars = only ? owned.calendars.filter((calendar) => only.has(calendar.id)) : owned.calendars;
  // Waits other processes and instances were asked for (CONTRACT §4).
  for (const { host, until } of held) backoffs.hold(host, until);
  const fetchContext = { ...options, backoffs, clock };

  // A calendar never read will certainly need the parser: load it while the first requests wait for answers.
  // A short timer, so the requests are on the wire before the load takes the event loop.
  const prestart = calendars.some((calendar) => calendar.contentHash === null && !calendar.etag)
    ? setTimeout(() => void loadCalendarWork().catch(() => {}), PRESTART_MS)
    : undefined;

  // Double bookings, read property by property as their calendars are done (see settled-conflicts.ts).
  const conflictReads = settledConflicts(calendars, (propertyId) => options.store.propertyActiveBookings(propertyId), clock);
  let done = 0;
  const batchSize = options.unchangedBatchSize ?? UNCHANGED_BATCH_SIZE;
  const batching = batchSize > 1 && !options.dryRun;
  const batch = batching ? createUnchangedBatch(options.store, batchSize, UNCHANGED_FLUSH_MS) : undefined;
  const failures = batching ? createFailureBatch(options.store, batchSize, UNCHANGED_FLUSH_MS) : undefined;
  const flushBatches = () => {
    batch?.flush();
    failures?.flush();
  };
  // Once every calendar not yet settled waits in a batch, nothing more will join them: write them now.
  const flushIfLast = () => {
    const waiting = (batch?.waiting ?? 0) + (failures?.waiting ?? 0);
    if (waiting > 0 && waiting >= calendars.length - done) flushBatches();
  };
  // A stopping server does not wait out the flush interval.
  const flushOnAbort = flushBatches;
  options.signal?.addEventListener("abort", flushOnAbort, { once: true });
  // A failure is remembered on the calendar (its streak, CONTRACT §8); a success reset it when it was written.
  const settle = async (calendar: CalendarRecord, entry: SyncResultEntry, fault?: WriteFaultError) => {
    const error = entry.result.error;
    // A throttled calendar was not asked: it neither fails nor recovers (CONTRACT §4). Nor does one a refresh
    // failed, or one cut short because the run was stopped (a server shutting down): the feed did not fail.
    const streak = options.dryRun
      ? undefined
      : (options.refresh || options.signal?.aborted) && error
        ? calendar.consecutiveFailures
      : error?.code === "throttled"
        ? calendar.consecutiveFailures
        : error
          ? await recordFailure(failures ?? options.store, calendar, error, clock(), flushIfLast)
          : 0;
    options.onProgress?.({
      done: ++done,
      total: calendars.length,
      calendarId: calendar.id,
      propertyName: calendar.propertyName,
      source: calendar.source,
      ok: entry.ok,
      ...(error ? { error } : {}),
      ...(streak === undefined ? {} : { consecutiveFailures: streak }),
      ...(fault ? { writeFault: fault.detail } : {}),
    });
    conflictReads.settled(calendar.propertyId);
    flushIfLast();
    return entry;
  };
  // Settle every calendar before anything is reported or thrown: a store fault in one calendar must not
  // end the run while others are still writing (a caller would think the owner idle and start again).
  const settled = await Promise.allSettled(
    calendars.map((calendar) => {
      // No later than the request: an event in the answer existed by then (echo detection, CONTRACT §8).
      const requestedAt = clock();
      // Until its fetch starts, a calendar waits as an entry of the limiter's queue and nothing more: a
      // suspended sync per calendar was a fifth of the live heap at the start of a 5,000-calendar run.
      // The slot is handed on once the body is read; reading, diffing and writing it hold none, and start on
      // a turn of their own so that the next fetch is out before this calendar's work begins.
      const host = hostOf(calendar.url);
      return limiter
        .run(host, () => fetchCalendar(calendar, host, fetchContext), options.ownerId)
        .then(async (fetched) => {
          await nextTurn();
          return syncCalendar(calendar, fetched, requestedAt, options, clock, batch && {
            batch,
            queued: () => flushIfLast(),
          });
        })
        .then(
          (entry) => settle(calendar, entry),
          // A database that cannot write fails this calendar, not the run (CONTRACT §4): the others go on.
          (error: unknown) => {
            if (!isWriteFault(error)) throw error;
            return settle(calendar, entryOf(calendar, NOTHING, writeFailed(error)), error);
          },
        );
    }),
  );
  clearTimeout(prestart);
  options.signal?.removeEventListener("abort", flushOnAbort);
  const fault = settled.find((outcome) => outcome.status === "rejected");
  if (fault) throw fault.reason;
  const results = settled.map((outcome) => (outcome as PromiseFulfilledResult<SyncResultEntry>).value);

  // Each property read back after its calendars are written, so a booking one channel sold during this run counts.
  const conflicts = await conflictReads.all();
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
  if (!options.dryRun && !options.refresh) {
    // The history is not the sync: a disk too full for it leaves the calendars' results as they are.
    await ignoreWriteFault(options.store.recordSyncRun({
      id: options.runId,
      ownerId: options.ownerId,
      trigger: options.trigger ?? "cli",
      dryRun: false,
      startedAt,
      calendarIds: calendars.map((calendar) => calendar.id),
      response,
      // Webhooks (CONTRACT §11): every run, and each double booking the first time it is seen.
      events: runEvents(response, clock()),
      conflicts: conflictAnnouncements(conflicts, clock()),
    }));
  }
  return response;
}

const NOTHING = { found: 0, created: 0, updated: 0, cancelled: 0 };

/**
 * Remembers a failure on the calendar (in `to`'s batch, or in a transaction of its own) and returns its streak;
 * undefined when the database could not write it. `queued` is called once it waits in the batch.
 */
async function recordFailure(
  to: SyncStore | FailureBatch,
  calendar: CalendarRecord,
  error: SyncError,
  failedAt: Date,
  queued: () => void,
): Promise<number | undefined> {
  const failure = { calendarId: calendar.id, error, failedAt, events: failureEvents(calendar, error, failedAt) };
  let written: Promise<CalendarStreak>;
  if ("add" in to) {
    written = to.add(failure);
    queued();
  } else written = to.recordCalendarFailure(failure);
  const streak = await ignoreWriteFault(written);
  return streak?.consecutiveFailures;
}


/** What one calendar's fetched feed changes, written (unless a dry run) and reported. */
async function syncCalendar(
  calendar: CalendarRecord,
  fetched: FetchFeedResult,
  requestedAt: Date,
  options: SyncOwnerOptions,
  clock: () => Date,
  batching?: { batch: UnchangedBatch; queued: () => void },
): Promise<SyncResultEntry> {
  const { store } = options;
  // The failure itself is recorded by the caller, which reports the calendar's streak.
  const fail = async (error: SyncError): Promise<SyncResultEntry> => entryOf(calendar, NOTHING, error);
  if (fetched.kind === "error") return fail(fetched.error);

  const unchanged = { found: calendar.lastFound, created: 0, updated: 0, cancelled: 0 };
  const keepState = async (etag: string | null, lastModified: string | null) => {
    if (options.dryRun) return;
    if (batching) {
      const feed = { etag, lastModified, contentHash: calendar.contentHash, lastFound: calendar.lastFound };
      const written = batching.batch.add({ calendarId: calendar.id, feed, syncedAt: clock(), events: successEvents(calendar, [], [], [], clock()) });
      batching.queued();
      return written;
    }
    await store.applyCalendarSync({
      calendarId: calendar.id,
      inserts: [],
      updates: [],
      cancels: [],
      feed: { etag, lastModified, contentHash: calendar.contentHash, lastFound: calendar.lastFound },
      syncedAt: clock(),
      events: successEvents(calendar, [], [], [], clock()),
    });
  };
  // A 304 or a byte-identical body cannot change anything: report the stored state.
  if (fetched.kind === "not_modified") {
    await keepState(calendar.etag, calendar.lastModified);
    return entryOf(calendar, unchanged);
  }
  const now = clock();
  const task = { knownHash: calendar.contentHash, day: formatDate(now), parse: { source: calendar.source, now } };
  const reading = await (options.read ?? readHere(options.parse))(fetched.bytes, task);
  if (reading.unchanged) {
    await keepState(fetched.etag, fetched.lastModified);
    return entryOf(calendar, unchanged);
  }
  const { contentHash, parsed } = reading;
  if (!parsed.ok) {
    return fail(explainHtmlAnswer(parsed.error, { body: reading.head, source: calendar.source, urls: [calendar.url, fetched.finalUrl] }));
  }

  const { diffReservationsInSlices, markEchoesInSlices } = await loadCalendarWork();
  const [stored, fetches] = await Promise.all([
    store.calendarReservations(calendar.id),
    store.propertyOutboundFetches(calendar.propertyId),
  ]);
  // A channel's re-export of nights calsync's feed served it is a block, never a sale (CONTRACT §8). Both steps
  // let the event loop turn every few milliseconds: a server keeps answering while it reads a 20,000-event feed.
  const context = { source: calendar.source, seenAt: requestedAt, fetches, stored, timeZone: calendar.timeZone };
  const events = await markEchoesInSlices(parsed.events, context);
  const unreadable = parsed.unreadable.map((event) => event.uid);
  const diff = await diffReservationsInSlices(stored, events, { now, force: options.force, unreadable, timeZone: calendar.timeZone });
  if (diff.suspicious) {
    const { cancelling, upcoming } = diff.suspicious;
    return fail({
      code: "suspicious_feed",
      message: `feed would cancel ${cancelling} of ${upcoming} upcoming reservations; nothing was changed (force to apply)`,
    });
  }
  const warnings = unreadableWarnings(parsed.unreadable);
  // Warnings are not stored: a feed with unreadable events is fetched and read in full every time (no
  // validators, no body hash), so each sync reports them again until the channel fixes the event.
  const feed =
    warnings.length === 0
      ? { etag: fetched.etag, lastModified: fetched.lastModified, contentHash }
      : { etag: null, lastModified: null, contentHash: null };
  if (!options.dryRun) {
    const insertIds = newReservationIds(diff.inserts.length);
    await store.applyCalendarSync({
      calendarId: calendar.id,
      inserts: diff.inserts,
      updates: diff.updates,
      cancels: diff.cancels,
      feed: { ...feed, lastFound: diff.counts.found },
      syncedAt: now,
      seenAt: requestedAt,
      timeZone: calendar.timeZone,
      insertIds,
      // Built when the store reads them: the SQLite store does only for an owner with a webhook endpoint.
      get events() {
        return successEvents(calendar, diff.changes, diff.inserts, insertIds, now);
      },
    });
  }
  return entryOf(calendar, diff.counts, undefined, warnings);
}

function entryOf(
  calendar: CalendarRecord,
  counts: { found: number; created: number; updated: number; cancelled: number },
  error?: SyncError,
  warnings: SyncWarning[] = [],
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
      // Additive to v1, like `conflicts`: absent rather than empty.
      ...(warnings.length > 0 ? { warnings } : {}),
    },
  };
}

/** Milliseconds after a run's requests are dispatched before the parser starts loading (see syncOwner). */
const PRESTART_MS = 10;

let calendarWork: Promise<typeof import("./calendar-work.js")> | undefined;
/** The parse, echo and diff steps, imported once per process on first use (see calendar-work.ts). */
function loadCalendarWork(): Promise<typeof import("./calendar-work.js")> {
  return (calendarWork ??= import("./calendar-work.js"));
}

/** Bytes of a body past which reading it on the event loop lets the loop turn between steps (a 20-event feed has 4,500). */
const BIG_BODY = 1 << 20;

/** `read` on this thread: parseFeed (loaded on first use) or the given `parse`, with turns of the event loop in a big body. */
function readHere(parse: SyncOwnerOptions["parse"]): ReadFeed {
  const parseText: ParseText = parse ?? (async (text, parseOptions) => (await loadCalendarWork()).parseFeed(text, parseOptions));
  return (bytes, task) => readFeedBody(bytes, task, parseText, bytes.length > BIG_BODY ? nextTurn : undefined);
}
