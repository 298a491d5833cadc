// `--sync-every`: syncs every owner on an interval through the shared single-flight runner. Owners are
// claimed in the store (CONTRACT §10), so N instances on one database sync each owner once per period.
import type { Store } from "../store/types.js";
import type { SyncResponse } from "../types.js";
import type { SyncRunner } from "./single-flight.js";

/** Longest delay a Node timer accepts (about 24.8 days); longer ones would fire at once. */
export const MAX_INTERVAL_MS = 2_147_483_647;

/** Options of `startScheduler`. */
export interface SchedulerOptions {
  store: Pick<Store, "claimScheduledSyncs">;
  runner: SyncRunner;
  /** Time between two rounds, in milliseconds (1 … MAX_INTERVAL_MS). */
  everyMs: number;
  /** Called once when an owner's scheduled run finishes. */
  onRun?: (ownerId: string, response: SyncResponse) => void;
  /** Called when a round or a run throws; the schedule carries on. */
  onError?: (error: unknown, ownerId: string | null) => void;
}

/** A running schedule. */
export interface Scheduler {
  /** No further rounds start; runs already going finish through the runner. */
  stop(): void;
}

/** Throws a RangeError unless `everyMs` is an interval a Node timer can keep. */
export function assertInterval(everyMs: number): void {
  if (!Number.isInteger(everyMs) || everyMs < 1 || everyMs > MAX_INTERVAL_MS) {
    throw new RangeError(`the sync interval must be a whole number of milliseconds from 1 to ${MAX_INTERVAL_MS}`);
  }
}

/** How often an instance looks for due owners: a quarter period, so a claim is at most that late, within 10 ms … 30 s. */
export function claimEveryMs(everyMs: number): number {
  return Math.min(Math.max(Math.floor(everyMs / 4), 10), 30_000);
}

/**
 * Syncs every owner that has calendars once each `everyMs`, each at its own point of the period (a hash of
 * its id, store/schedule-slots.ts), the first time between half a period and one and a half after it is first
 * seen, and never twice within half a period. Each look claims the owners that are due and not being synced anywhere.
 */
export function startScheduler(options: SchedulerOptions): Scheduler {
  assertInterval(options.everyMs);
  let looking = false;
  const look = async () => {
    // A slow claim (a busy database) is not stacked under the next one.
    if (looking) return;
    looking = true;
    let owners: string[];
    try {
      owners = await options.store.claimScheduledSyncs({ everyMs: options.everyMs });
    } catch (error) {
      options.onError?.(error, null);
      return;
    } finally {
      looking = false;
    }
    for (const ownerId of owners) {
      // An owner whose run is still going (from the API, a CLI or another instance) is left to it: joining
      // would report that one run once per round, and start the next the instant it ends.
      options.runner.runIfIdle(ownerId, "schedule").then(
        (response) => response && options.onRun?.(ownerId, response),
        (error: unknown) => options.onError?.(error, ownerId),
      );
    }
  };
  const timer = setInterval(look, claimEveryMs(options.everyMs));
  return {
    stop() {
      clearInterval(timer);
    },
  };
}
