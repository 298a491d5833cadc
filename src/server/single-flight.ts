// One sync per owner at a time: a request that arrives while its owner's run is going joins that run.
import { createFetchLimiter, type FetchLimiter } from "../engine/fetch-limiter.js";
import type { SyncTrigger } from "../engine/model.js";
import type { SyncStore } from "../engine/store-port.js";
import { syncOwner, type SyncOwnerOptions } from "../engine/sync.js";
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
  /** How feed bodies are parsed; `startServer` passes its worker pool's. @default parseFeed, on this thread */
  parse?: SyncOwnerOptions["parse"];
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
        parse: options.parse,
      }).finally(() => running.delete(ownerId));
      running.set(ownerId, run);
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
