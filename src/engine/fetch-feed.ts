// Fetches one feed (CONTRACT §4–§5): webcal mapping, conditional GET, manual redirects through the
// private-network guard, one total deadline, a cap on the decoded body. Failures are values, never throws.
import { Agent, request } from "undici";
import type { SyncError } from "../types.js";
import { readFeedBody } from "./feed-body.js";
import { maskUrl } from "./mask-url.js";
import { BLOCKED_ADDRESS_CODE, blockedAddressError, guardedLookup, ipLiteralOf, isBlockedAddress } from "./network-guard.js";

/** Options of `fetchFeed`. */
export interface FetchFeedOptions {
  /** `ETag` of the last fetch, sent as `If-None-Match`. */
  etag?: string | null;
  /** `Last-Modified` of the last fetch, sent as `If-Modified-Since`. */
  lastModified?: string | null;
  /** One deadline over every hop and the whole body, in milliseconds. @default 20000 */
  timeoutMs?: number;
  /** Largest body accepted, in bytes after decompression. @default 10 MiB */
  maxBytes?: number;
  /** Redirects followed before giving up. @default 5 */
  maxRedirects?: number;
  /** Let the feed reach loopback and private addresses. @default false */
  allowPrivateNetworks?: boolean;
  /** Cancels the fetch (reported as `fetch_failed`). */
  signal?: AbortSignal;
}

/** What fetching a feed gave. */
export type FetchFeedResult =
  | { kind: "not_modified" }
  | { kind: "ok"; body: string; etag: string | null; lastModified: string | null; finalUrl: string }
  | { kind: "error"; error: SyncError };

const DEFAULTS = { timeoutMs: 20_000, maxBytes: 10 * 1024 * 1024, maxRedirects: 5 };
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

// One pool per guard setting; the lookup runs on every new connection, so each redirect hop and
// every address a name resolves to is checked where it is connected.
const agents = new Map<boolean, Agent>();
function agentFor(allowPrivate: boolean): Agent {
  let agent = agents.get(allowPrivate);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(allowPrivate) } });
    agents.set(allowPrivate, agent);
  }
  return agent;
}

/** Fetches a feed URL and returns its body, `not_modified`, or a `SyncError` with a masked, human message. */
export async function fetchFeed(url: string, options: FetchFeedOptions = {}): Promise<FetchFeedResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? DEFAULTS.maxBytes;
  const maxRedirects = options.maxRedirects ?? DEFAULTS.maxRedirects;
  const allowPrivate = options.allowPrivateNetworks ?? false;

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });

  const deadlineError = (): FetchFeedResult =>
    timedOut
      ? fail("timeout", `feed did not answer within ${formatSeconds(timeoutMs)}`)
      : fail("fetch_failed", "fetch of the feed was cancelled");

  try {
    if (options.signal?.aborted) return deadlineError();
    let current = toHttpUrl(url);
    if (typeof current === "string") return fail("fetch_failed", current);
    const seen = new Set<string>();

    for (let hop = 0; ; hop++) {
      const literal = ipLiteralOf(current.hostname);
      if (literal && !allowPrivate && isBlockedAddress(literal)) return blocked(blockedAddressError(current.hostname, literal));
      seen.add(current.href);

      let response: Awaited<ReturnType<typeof request>>;
      try {
        response = await request(requestUrl(current), {
          method: "GET",
          dispatcher: agentFor(allowPrivate),
          headers: requestHeaders(current, options),
          signal: controller.signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
      } catch (error) {
        if (controller.signal.aborted) return deadlineError();
        return networkFailure(error, current);
      }
      const { statusCode, headers, body } = response;
      // Undici emits 'error' on a body destroyed before its end (our early exits, the deadline);
      // those are outcomes we already report, not crashes.
      body.on("error", () => {});

      if (REDIRECTS.has(statusCode) && headers.location) {
        body.destroy();
        const next = toHttpUrl(first(headers.location) ?? "", current);
        if (typeof next === "string") return fail("fetch_failed", `feed redirected to an unusable address: ${next}`);
        if (seen.has(next.href)) return fail("fetch_failed", `feed redirects in a loop (${maskUrl(next.href)})`);
        if (hop >= maxRedirects) return fail("fetch_failed", `feed redirected more than ${maxRedirects} times`);
        current = next;
        continue;
      }
      if (statusCode === 304 && (options.etag || options.lastModified)) {
        body.destroy();
        return { kind: "not_modified" };
      }
      if (statusCode < 200 || statusCode > 299) {
        body.destroy();
        return { kind: "error", error: { code: "http_error", message: `feed answered HTTP ${statusCode}`, httpStatus: statusCode } };
      }
      const declared = Number(first(headers["content-length"]));
      if (Number.isFinite(declared) && declared > maxBytes) {
        body.destroy();
        return tooLarge(maxBytes);
      }

      let read: Awaited<ReturnType<typeof readFeedBody>>;
      try {
        read = await readFeedBody(body, first(headers["content-encoding"]), maxBytes);
      } catch (error) {
        if (controller.signal.aborted) return deadlineError();
        return networkFailure(error, current);
      }
      if (read.kind === "too_large") return tooLarge(maxBytes);
      if (read.kind === "bad_encoding") return fail("fetch_failed", `feed used an unsupported content encoding (${read.encoding})`);
      if (read.kind === "corrupt") return fail("fetch_failed", "feed body could not be decompressed");
      return {
        kind: "ok",
        body: read.text,
        etag: first(headers.etag) ?? null,
        lastModified: first(headers["last-modified"]) ?? null,
        finalUrl: current.href,
      };
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** Parses a feed URL (relative to `base` for a redirect); `webcal(s):` means `https:`. Returns a message on failure. */
function toHttpUrl(raw: string, base?: URL): URL | string {
  const mapped = raw.trim().replace(/^webcals?:/i, "https:");
  let parsed: URL;
  try {
    parsed = new URL(mapped, base);
  } catch {
    return "feed URL is not a valid URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `feed URL must use http, https or webcal, not ${parsed.protocol.replace(/:$/, "")}`;
  }
  return parsed;
}

/** The URL without userinfo, which travels as an Authorization header instead. */
function requestUrl(url: URL): string {
  if (!url.username && !url.password) return url.href;
  const bare = new URL(url.href);
  bare.username = "";
  bare.password = "";
  return bare.href;
}

function requestHeaders(url: URL, options: FetchFeedOptions): Record<string, string> {
  const headers: Record<string, string> = {
    accept: "text/calendar, */*;q=0.5",
    "accept-encoding": "gzip, deflate, br",
    "user-agent": "calsync/0.1",
  };
  if (options.etag) headers["if-none-match"] = options.etag;
  if (options.lastModified) headers["if-modified-since"] = options.lastModified;
  if (url.username || url.password) {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
  }
  return headers;
}

/** Maps a connection failure to `blocked_address` or `fetch_failed`, with a message free of the URL's secrets. */
function networkFailure(error: unknown, url: URL): FetchFeedResult {
  const blockedCause = findCause(error, (e) => e.code === BLOCKED_ADDRESS_CODE);
  if (blockedCause) return blocked(blockedCause as unknown as ReturnType<typeof blockedAddressError>);
  const code = findCause(error, (e) => typeof e.code === "string")?.code;
  const host = url.host;
  switch (code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return fail("fetch_failed", `feed host ${url.hostname} was not found`);
    case "ECONNREFUSED":
      return fail("fetch_failed", `feed host ${host} refused the connection`);
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
    case "EPIPE":
      return fail("fetch_failed", `feed host ${host} closed the connection`);
    case "UND_ERR_CONNECT_TIMEOUT":
      return fail("fetch_failed", `feed host ${host} could not be reached`);
    default:
      if (typeof code === "string" && /CERT|SSL|TLS/.test(code)) return fail("fetch_failed", `feed host ${host} has an untrusted TLS certificate`);
      return fail("fetch_failed", `could not fetch the feed from ${maskUrl(url.href)}${code ? ` (${code})` : ""}`);
  }
}

function findCause(error: unknown, test: (e: { code?: unknown }) => boolean): { code?: unknown } | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
    const candidate = current as { code?: unknown; cause?: unknown };
    if (test(candidate)) return candidate;
    current = candidate.cause;
  }
  return undefined;
}

function blocked(error: { hostname: string; address: string }): FetchFeedResult {
  const where = error.hostname === error.address ? error.address : `${error.hostname} (${error.address})`;
  return fail("blocked_address", `feed address ${where} is private or local; refused (allow with --allow-private-networks)`);
}

function tooLarge(maxBytes: number): FetchFeedResult {
  return fail("too_large", `feed is larger than ${formatBytes(maxBytes)}`);
}

function fail(code: SyncError["code"], message: string): FetchFeedResult {
  return { kind: "error", error: { code, message } };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
