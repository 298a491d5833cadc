// Sign-in throttling (CONTRACT §9): after 10 failed sign-ins for one email or from one client address
// within 15 minutes, sign-in answers 429 with Retry-After. The counts live in the store, so every
// instance on one database sees the same ones.
import { createHash } from "node:crypto";
import type { Store } from "../../store/types.js";

/** Failures allowed per email and per client address within the window. */
export const MAX_FAILURES = 10;
/** The window failures are counted in. */
export const WINDOW_MS = 15 * 60 * 1000;

/** Longest value kept as typed in a key; no email (254) or address is longer. */
const MAX_KEY_VALUE = 320;

/** Store keys a sign-in attempt counts under. */
export function throttleKeys(email: string, clientAddress: string): string[] {
  return [`email:${bounded(email)}`, `ip:${bounded(clientAddress)}`];
}

// Both come from the request: kilobytes of either would not fit PostgreSQL's index on the key (a 500), so a
// longer value counts under its hash, which still throttles whoever repeats it.
function bounded(value: string): string {
  return value.length <= MAX_KEY_VALUE ? value : `sha256:${createHash("sha256").update(value).digest("hex")}`;
}

/** Seconds until an attempt under `keys` may be made again, or 0 when it may be made now. */
export async function retryAfterSeconds(store: Store, keys: string[], now: Date): Promise<number> {
  const since = new Date(now.getTime() - WINDOW_MS);
  let waitMs = 0;
  for (const key of keys) {
    const failures = await store.signInFailures(key, since);
    if (failures.length < MAX_FAILURES) continue;
    // Blocked until enough of the oldest failures leave the window to bring the count under the limit.
    const freeing = failures[failures.length - MAX_FAILURES]!;
    waitMs = Math.max(waitMs, Date.parse(freeing) + WINDOW_MS - now.getTime());
  }
  return waitMs > 0 ? Math.ceil(waitMs / 1000) : 0;
}

/** Counts one failed sign-in under `keys`, and forgets failures too old to count. */
export async function recordFailure(store: Store, keys: string[], now: Date): Promise<void> {
  await store.pruneSignInFailures(new Date(now.getTime() - WINDOW_MS));
  await store.addSignInFailure(keys, now);
}
