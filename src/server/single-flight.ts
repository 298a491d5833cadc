// One sync per owner at a time: a request that arrives while its owner's run is going joins that run.
import { createFetchLimiter, type FetchLimiter } from "../engine/fetch-limiter.js";
import type { SyncTrigger } from "../engine/model.js";
import type { SyncStore } from "../engine/store-port.js";
import { syncOwner, type FeedFetch, type SyncOwnerOptions, type SyncProgress } from "../engine/sync.js";
import type { SyncResponse } from "../types.js";

/** How the runner calls the engine. */
export interface SyncRunnerOptions {
  store: SyncStore;
  /** Let feed URLs reach loopback and private addresses. @default false */
  allowPrivateNetworks?: boolean;
  /** Shared by every run, so the global fetch limits hold across owners. @default createFetchLimiter() */
  limiter?: FetchLimiter;
  /** Deadline of one feed fetch, in milliseconds. @default the engine's (20000) */
  feedTimeoutMs?: number;
  /** Clock, for tests. @default () => new Date() */
  now?: () => Date;
  /** Called after each calendar of every run (e.g. to log a calendar that keeps failing). */
  onProgress?: (ownerId: string, trigger: SyncTrigger, progress: SyncProgress) => void;
  /** Called once per run (not per joining request) when it ends, e.g. for metrics. */
  onRunFinished?: (run: FinishedRun) => void;
  /** Called after each feed fetch of any run, e.g. for metrics. */
  onFeedFetched?: (fetch: FeedFetch) => void;
  /** How feed bodies are parsed; `startServer` passes its worker pool's. @default parseFeed, on this thread */
  parse?: SyncOwnerOptions["parse"];
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
  /** The running sync of `ownerId` if there is one (whatever started it), else a new one. */
  run(ownerId: string, trigger: SyncTrigger): Promise<SyncResponse>;
  /** True while a sync of `ownerId` is running. */
  isRunning(ownerId: string): boolean;
  /** Resolves once no sync is running (including runs that start while waiting). */
  idle(): Promise<void>;
  /** Number of owners with a sync running. */
  readonly active: number;
}

/** Creates a runner; share one between the HTTP app and the scheduler. */
export function createSyncRunner(options: SyncRunnerOptions): SyncRunner {
  const limiter = options.limiter ?? createFetchLimiter();
  const running = new Map<string, Promise<SyncResponse>>();
  return {
    run(ownerId, trigger) {
      const current = running.get(ownerId);
      if (current) return current;
      const run = syncOwner({
        store: options.store,
        ownerId,
        trigger,
        limiter,
        allowPrivateNetworks: options.allowPrivateNetworks ?? false,
        timeoutMs: options.feedTimeoutMs,
        now: options.now,
        onProgress: options.onProgress && ((progress) => options.onProgress?.(ownerId, trigger, progress)),
        onFeedFetched: options.onFeedFetched,
        parse: options.parse,
      }).finally(() => running.delete(ownerId));
      running.set(ownerId, run);
      if (options.onRunFinished) reportWhenDone(run, trigger, options.onRunFinished);
      return run;
    },
    isRunning: (ownerId) => running.has(ownerId),
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running.values()]);
    },
    get active() {
      return running.size;
    },
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
