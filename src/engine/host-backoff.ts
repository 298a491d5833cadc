// A feed host that answered 429 or 503 with Retry-After gets nothing more from calsync until then (CONTRACT §4).
// One HostBackoffs is shared by every run of a process; the store shares it with other processes and instances.
import { retryAfterMs } from "../sdk/retry.js";
import type { SyncError } from "../types.js";

/** Longest wait a feed host may ask for that calsync honours, in seconds. */
export const MAX_RETRY_AFTER_S = 3600;

/** Hosts that asked calsync to wait, and until when. */
export interface HostBackoffs {
  /** Whole seconds until `host` may be asked again; 0 when it may be asked now. */
  remaining(host: string, now: Date): number;
  /** Sends `host` nothing before `until` (a later hold wins; an earlier one changes nothing). */
  hold(host: string, until: Date): void;
}

/** Creates an empty, in-memory set of back-offs. */
export function createHostBackoffs(): HostBackoffs {
  const until = new Map<string, number>();
  return {
    remaining(host, now) {
      const end = until.get(host);
      if (end === undefined) return 0;
      if (end <= now.getTime()) {
        until.delete(host);
        return 0;
      }
      return Math.ceil((end - now.getTime()) / 1000);
    },
    hold(host, end) {
      if (end.getTime() > (until.get(host) ?? 0)) until.set(host, end.getTime());
    },
  };
}

/**
 * The wait a `Retry-After` value asks for (seconds or an HTTP date), in whole seconds, at most
 * MAX_RETRY_AFTER_S; undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const ms = retryAfterMs(new Headers({ "retry-after": value }), now.getTime());
  return ms === undefined ? undefined : Math.min(Math.ceil(ms / 1000), MAX_RETRY_AFTER_S);
}

/** The failure of a calendar whose host asked for a wait that has not passed: no request was sent. */
export function throttledError(host: string, retryAfter: number): SyncError {
  return {
    code: "throttled",
    message: `feed host ${host} asked calsync to wait (Retry-After); not asked again for ${retryAfter} s`,
    retryAfter,
  };
}
