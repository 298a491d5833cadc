// Password throttling (CONTRACT §9): at most 10 password checks per email and per client address within
// 15 minutes, then 429 with Retry-After. Each check is counted in the store BEFORE it is made, so a burst
// of any size, spread over any number of instances, gets at most 10 checks; one whose password matched
// is given back. Sign-in, the password change and the password-reset form all go through reserveAttempt.
import { createHash } from "node:crypto";
import type { Store } from "../../store/types.js";

/** Password checks allowed per key within the window. */
export const MAX_FAILURES = 10;
/** The window checks are counted in. */
export const WINDOW_MS = 15 * 60 * 1000;

/** Longest value kept as typed in a key; no email (254) or address is longer. */
const MAX_KEY_VALUE = 320;

/** Store keys a password check counts under: the email (or account) it guesses at, and where it comes from. */
export function throttleKeys(email: string, clientAddress: string): string[] {
  return [`email:${bounded(email)}`, `ip:${bounded(clientAddress)}`];
}

// Both come from the request: kilobytes of either would not fit PostgreSQL's index on the key (a 500), so a
// longer value counts under its hash, which still throttles whoever repeats it.
function bounded(value: string): string {
  return value.length <= MAX_KEY_VALUE ? value : `sha256:${createHash("sha256").update(value).digest("hex")}`;
}

/** A check that may go ahead (give `attempt` back if it succeeds), or how long to wait. */
export type Attempt = { allowed: true; attempt: string } | { allowed: false; retryAfterSeconds: number };

/**
 * Reserves one password check under every key, atomically in the store, before the check is made.
 * Refused (with the seconds until a place frees) when any key already counts 10 in the last 15 minutes.
 */
export async function reserveAttempt(store: Store, keys: string[], now: Date): Promise<Attempt> {
  const since = new Date(now.getTime() - WINDOW_MS);
  const reservation = await store.reserveSignInAttempt({ keys, at: now, since, limit: MAX_FAILURES });
  if (reservation.reserved) return { allowed: true, attempt: reservation.attempt };
  const waitMs = Date.parse(reservation.freedBy) + WINDOW_MS - now.getTime();
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/** Gives back a reserved check whose password matched: it no longer counts against anyone. */
export async function giveBackAttempt(store: Store, attempt: string): Promise<void> {
  await store.releaseSignInAttempt(attempt);
}

/** The 429 text of a refused attempt, in whole minutes. */
export function tryAgainIn(retryAfterSeconds: number): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return `Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}
