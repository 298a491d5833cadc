// `--sync-every`: syncs every owner on an interval through the shared single-flight runner.
import type { Store } from "../store/types.js";
import type { SyncResponse } from "../types.js";
import type { SyncRunner } from "./single-flight.js";

/** Longest delay a Node timer accepts (about 24.8 days); longer ones would fire at once. */
export const MAX_INTERVAL_MS = 2_147_483_647;

/** Options of `startScheduler`. */
export interface SchedulerOptions {
  store: Store;
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

/** Starts syncing every owner that has calendars each `everyMs`; the first round runs after one interval. */
export function startScheduler(options: SchedulerOptions): Scheduler {
  assertInterval(options.everyMs);
  const round = async () => {
    let owners: string[];
    try {
      // Owners without calendars are skipped so the history holds only runs that did something.
      const withCalendars = new Set((await options.store.listCalendars()).map((calendar) => calendar.ownerId));
      owners = (await options.store.listOwners()).map((owner) => owner.id).filter((id) => withCalendars.has(id));
    } catch (error) {
      options.onError?.(error, null);
      return;
    }
    for (const ownerId of owners) {
      // An owner whose run is still going (from the API or an earlier round) is left to it: joining
      // would report that one run once per round, and start the next the instant it ends.
      if (options.runner.isRunning(ownerId)) continue;
      options.runner.run(ownerId, "schedule").then(
        (response) => options.onRun?.(ownerId, response),
        (error: unknown) => options.onError?.(error, ownerId),
      );
    }
  };
  const timer = setInterval(round, options.everyMs);
  return {
    stop() {
      clearInterval(timer);
    },
  };
}
