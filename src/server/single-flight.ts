// One sync per owner at a time: a request that arrives while its owner's run is going joins that run,
// whether it goes in this process (the promise is shared) or in another process or instance on the
// same database (the owner's lease, see ../store/owner-lease.ts).
import { createFetchLimiter, type FetchLimiter, type FetchLimiterOptions } from "../engine/fetch-limiter.js";
import { createHostBackoffs, type HostBackoffs } from "../engine/host-backoff.js";
import type { SyncTrigger } from "../engine/model.js";
import { syncOwner, type FeedFetch, type SyncOwnerOptions, type SyncProgress } from "../engine/sync.js";
import { createPropertyRefresh, type PropertyRefresh, type PropertyRefreshOptions } from "../resources/property-refresh.js";
import { runWithOwnerLease, type LeaseMode } from "../store/owner-lease.js";
import type { SyncLease } from "../store/types.js";
import type { SyncResponse } from "../types.js";

/** How the runner calls the engine. */
export interface SyncRunnerOptions {
  store: PropertyRefreshOptions["store"];
  /** Let feed URLs reach loopback and private addresses. @default false */
  allowPrivateNetworks?: boolean;
  /** Shared by every run, so the process's fetch limits hold across owners. @default createFetchLimiter(fetchLimits) */
  limiter?: FetchLimiter;
  /** Limits of the limiter made when `limiter` is left out. @default DEFAULT_FETCH_LIMITS (16 / 6 per host; 8 / 2 per owner) */
  fetchLimits?: FetchLimiterOptions;
  /** Feed hosts that asked to wait (Retry-After), shared by every run. @default a new, empty one */
  backoffs?: HostBackoffs;
  /** Deadline of one feed fetch, in milliseconds. @default the engine's (20000) */
  feedTimeoutMs?: number;
  /** Longest wait of a direct stay's check for its refresh (`--refresh-timeout`). @default DEFAULT_REFRESH_TIMEOUT_MS (8 s) */
  refreshTimeoutMs?: number;
  /** Clock, for tests. @default () => new Date() */
  now?: () => Date;
  /** How long an owner's lease lasts unless renewed, in milliseconds. @default DEFAULT_LEASE_MS (15 s) */
  leaseMs?: number;
  /** Told when a run waits for a run of the same owner in another process or instance. */
  onWait?: (ownerId: string, lease: SyncLease) => void;
  /** Called after each calendar of every run (e.g. to log a calendar that keeps failing). */
  onProgress?: (ownerId: string, trigger: SyncTrigger, progress: SyncProgress) => void;
  /**
   * Called once per run this process makes, when it ends (not per joining request, nor for a run that
   * another process made and this one answered), e.g. for metrics.
   */
  onRunFinished?: (run: FinishedRun) => void;
  /** Called after each feed fetch of any run, e.g. for metrics. */
  onFeedFetched?: (fetch: FeedFetch) => void;
  /** How fetched bodies are read and parsed; `startServer` passes its worker pool's. @default on this thread */
  read?: SyncOwnerOptions["read"];
}

/** A run that ended: its response, or the fault that ended it. */
export interface FinishedRun {
  trigger: SyncTrigger;
  durationMs: number;
  response?: SyncResponse;
  error?: unknown;
}

/** Runs the engine for owners, single flight per owner, different owners in parallel. */
export interface SyncRunner {
  /** The running sync of `ownerId` if there is one (whatever started it, wherever), else a new one. */
  run(ownerId: string, trigger: SyncTrigger): Promise<SyncResponse>;
  /** A new sync of `ownerId`, or undefined (without waiting) when one is going anywhere. */
  runIfIdle(ownerId: string, trigger: SyncTrigger): Promise<SyncResponse | undefined>;
  /** The refresh before a direct stay's check: one property's channel calendars, sharing this runner's fetch limits. */
  refresh: PropertyRefresh;
  /** True while a sync of `ownerId` started by this runner is going. */
  isRunning(ownerId: string): boolean;
  /** Resolves once no sync and no refresh is running (including runs that start while waiting). */
  idle(): Promise<void>;
  /** Number of owners with a sync running. */
  readonly active: number;
  /** Cuts every running sync short (see `SyncOwnerOptions.signal`); runs started after this are cut at once. */
  abort(): void;
}

/** Creates a runner; share one between the HTTP app and the scheduler. */
export function createSyncRunner(options: SyncRunnerOptions): SyncRunner {
  const limiter = options.limiter ?? createFetchLimiter(options.fetchLimits);
  const backoffs = options.backoffs ?? createHostBackoffs();
  const running = new Map<string, Promise<SyncResponse | undefined>>();
  const stop = new AbortController();
  const refresh = createPropertyRefresh({
    store: options.store,
    allowPrivateNetworks: options.allowPrivateNetworks,
    limiter,
    backoffs,
    feedTimeoutMs: options.feedTimeoutMs,
    timeoutMs: options.refreshTimeoutMs,
    now: options.now,
    leaseMs: options.leaseMs,
    onWait: options.onWait,
    onFeedFetched: options.onFeedFetched,
    read: options.read,
    signal: stop.signal,
  });
  const start = (ownerId: string, trigger: SyncTrigger, mode: LeaseMode) => {
    const lease = { store: options.store, leaseMs: options.leaseMs, onWait: (l: SyncLease) => options.onWait?.(ownerId, l) };
    const flight = runWithOwnerLease(lease, ownerId, mode, (runId) => {
      const run = syncOwner({
        store: options.store,
        ownerId,
        trigger,
        runId,
        limiter,
        backoffs,
        allowPrivateNetworks: options.allowPrivateNetworks ?? false,
        timeoutMs: options.feedTimeoutMs,
        signal: stop.signal,
        now: options.now,
        onProgress: options.onProgress && ((progress) => options.onProgress?.(ownerId, trigger, progress)),
        onFeedFetched: options.onFeedFetched,
        read: options.read,
      });
      if (options.onRunFinished) reportWhenDone(run, trigger, options.onRunFinished);
      return run;
    }).finally(() => running.delete(ownerId));
    // Set before anything is awaited, so a request arriving a moment later joins this one.
    running.set(ownerId, flight);
    return flight;
  };
  return {
    async run(ownerId, trigger) {
      for (;;) {
        const current = running.get(ownerId);
        if (!current) return (await start(ownerId, trigger, "join"))!;
        const response = await current;
        if (response) return response;
        // That was the schedule's attempt, which found another process's run and did not wait: join it now.
      }
    },
    runIfIdle(ownerId, trigger) {
      return running.has(ownerId) ? Promise.resolve(undefined) : start(ownerId, trigger, "if-idle");
    },
    refresh,
    isRunning: (ownerId) => running.has(ownerId),
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running.values()]);
      await refresh.idle();
    },
    get active() {
      return running.size;
    },
    abort: () => stop.abort(),
  };
}

// Watches a run without handling its rejection for anyone else: callers still see the fault.
function reportWhenDone(run: Promise<SyncResponse>, trigger: SyncTrigger, report: (run: FinishedRun) => void): void {
  const started = performance.now();
  const durationMs = () => performance.now() - started;
  run.then(
    (response) => report({ trigger, durationMs: durationMs(), response }),
    (error: unknown) => report({ trigger, durationMs: durationMs(), error }),
  );
}
