// Turns what can go wrong while fetching a feed into SyncError values with human messages that never
// hold the feed URL's secret parts (hosts are not secret; paths and queries go through maskUrl).
import type { SyncError } from "../types.js";
import { maskUrl } from "./mask-url.js";
import { BLOCKED_ADDRESS_CODE, type BlockedAddressError } from "./network-guard.js";

/** A failed fetch, as `fetchFeed` returns it. */
export interface FetchFailure {
  kind: "error";
  error: SyncError;
}

/** A failure with `code` and `message`. */
export function fail(code: SyncError["code"], message: string): FetchFailure {
  return { kind: "error", error: { code, message } };
}

/**
 * The feed answered a status that is neither 2xx, a redirect we follow, nor an expected 304; `retryAfter`
 * (seconds) when a 429 or 503 asked for a wait.
 */
export function httpError(status: number, retryAfter?: number): FetchFailure {
  const message = `feed answered HTTP ${status}${retryAfter === undefined ? "" : ` and asked to wait ${retryAfter} s`}`;
  return { kind: "error", error: { code: "http_error", message, httpStatus: status, ...(retryAfter === undefined ? {} : { retryAfter }) } };
}

/** The body (declared or decoded) is over the cap. */
export function tooLarge(maxBytes: number): FetchFailure {
  return fail("too_large", `feed is larger than ${formatBytes(maxBytes)}`);
}

/** The total deadline passed. `subject` names what was called (webhooks say "receiver"). */
export function timedOut(timeoutMs: number, subject = "feed"): FetchFailure {
  const seconds = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${(timeoutMs / 1000).toFixed(1)} s`;
  return fail("timeout", `${subject} did not answer within ${seconds}`);
}

/** The guard refused `hostname` because it is, or resolves to, `address`. */
export function blocked(hostname: string, address: string, subject = "feed"): FetchFailure {
  const where = hostname === address || hostname === `[${address}]` ? address : `${hostname} (${address})`;
  return fail("blocked_address", `${subject} address ${where} is private or local; refused (allow with --allow-private-networks)`);
}

/** Maps a connection failure to `blocked_address` or `fetch_failed`. */
export function networkFailure(error: unknown, url: URL, subject = "feed"): FetchFailure {
  const refused = findCause(error, (e) => e.code === BLOCKED_ADDRESS_CODE) as BlockedAddressError | undefined;
  if (refused) return blocked(refused.hostname, refused.address, subject);
  const code = findCause(error, (e) => typeof e.code === "string")?.code;
  const host = url.host;
  switch (code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_FAIL":
    case "ENODATA":
      return fail("fetch_failed", `${subject} host ${url.hostname} was not found`);
    case "ECONNREFUSED":
      return fail("fetch_failed", `${subject} host ${host} refused the connection`);
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
    case "EPIPE":
      return fail("fetch_failed", `${subject} host ${host} closed the connection`);
    case "UND_ERR_CONNECT_TIMEOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return fail("fetch_failed", `${subject} host ${host} could not be reached`);
    default:
      if (typeof code === "string" && /CERT|SSL|TLS/.test(code)) return fail("fetch_failed", `${subject} host ${host} has an untrusted TLS certificate`);
      const what = subject === "feed" ? "fetch the feed from" : `reach the ${subject} at`;
      return fail("fetch_failed", `could not ${what} ${maskUrl(url.href)}${typeof code === "string" ? ` (${code})` : ""}`);
  }
}

// Undici wraps the socket's error (and ours from the lookup) in its own; walk a few causes down.
function findCause(error: unknown, test: (e: { code?: unknown }) => boolean): { code?: unknown } | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
    const candidate = current as { code?: unknown; cause?: unknown };
    if (test(candidate)) return candidate;
    current = candidate.cause;
  }
  return undefined;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
