// Whether, when and how long to wait before another attempt. A GET is always safe to repeat. A sync
// is too (an unchanged feed reports 0/0/0, and the server runs one sync per owner at a time), so
// even its POST is retried. Any other POST, PATCH or DELETE is retried only with an Idempotency-Key,
// which the server answers with the first answer again (CONTRACT §14); the resources send one on
// every such call (the caller's, else one made per call), so a lost answer never books twice.
import { AbortError } from "./errors.js";

/** Longest server-requested wait (`Retry-After`) the SDK sits through; a longer one is not retried. */
export const MAX_RETRY_AFTER_MS = 60_000;
const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/** Whether an answer with this status is worth another attempt: 408, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Whether a request may be sent again after a failure at all: GET always; POST, PATCH and DELETE
 * only with an `idempotencyKey`, or when the call is `repeatable` by nature (a sync). Without one,
 * an answer lost after the server acted would turn a retry into a second booking or a 409.
 */
export function mayRepeat(method: string, idempotencyKey?: string, repeatable = false): boolean {
  if (method === "GET" || method === "HEAD") return true;
  return repeatable || (idempotencyKey !== undefined && idempotencyKey !== "");
}

/** Exponential backoff for retry number `retry` (0 for the first): 0.5 s · 2^retry, at most 8 s, minus up to 25 % jitter. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const base = Math.min(INITIAL_BACKOFF_MS * 2 ** retry, MAX_BACKOFF_MS);
  return base * (1 - 0.25 * random());
}

/**
 * The wait the server asked for, in ms, from `retry-after-ms` or `Retry-After` (seconds or an
 * HTTP date); `undefined` when absent or unreadable. A date in the past means "now" (0).
 */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number.parseFloat(value) * 1000;
  // Date.parse reads bare numbers like "-1" as years, so only a text date counts.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry`: the server's `Retry-After` when it gave one,
 * otherwise `backoffMs`. `undefined` means "do not retry": the server asked for more than
 * `MAX_RETRY_AFTER_MS`, so failing now beats hanging the caller or calling back too early.
 */
export function retryDelayMs(retry: number, headers?: Headers, now?: number): number | undefined {
  const asked = retryAfterMs(headers, now);
  if (asked === undefined) return backoffMs(retry);
  return asked > MAX_RETRY_AFTER_MS ? undefined : asked;
}

/** Waits `ms`; rejects at once with `AbortError` when `signal` aborts (before or during the wait). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortErrorOf(signal));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortErrorOf(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The `AbortError` for a caller's aborted signal, keeping its reason as `cause`. */
export function abortErrorOf(signal: AbortSignal): AbortError {
  return new AbortError("the request was aborted by its signal", { cause: signal.reason });
}
