// Fetches one feed (CONTRACT §4–§5): webcal mapping, conditional GET, manual redirects through the
// private-network guard, one total deadline, a cap on the decoded body. Failures are values, never throws.
import { EventEmitter } from "node:events";
import { SDK_VERSION } from "../sdk/version.js";
import type { SyncError } from "../types.js";
import { blocked, fail, httpError, networkFailure, timedOut, tooLarge } from "./fetch-errors.js";
import type { BodyResult } from "./feed-body.js";
import { decodeBody } from "./feed-bytes.js";
import { startExchange, type Exchange, type ResponseHead } from "./feed-exchange.js";
import { parseRetryAfter } from "./host-backoff.js";
import { maskUrl } from "./mask-url.js";
import { guardedLookup, ipLiteralOf, isBlockedAddress } from "./network-guard.js";
import { Agent } from "./undici-agent.js";

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
  /** Sent as `User-Agent`. @default "calsync/<package version>" */
  userAgent?: string;
}

/** What fetching a feed gave. */
export type FetchFeedResult = { kind: "not_modified" } | FetchedFeed | { kind: "error"; error: SyncError };

/** A feed that arrived whole. */
export interface FetchedFeed {
  kind: "ok";
  /** The body as received, after decompression. */
  bytes: Uint8Array;
  /**
   * The body as text, decoded from `bytes` when first read (a server hands bodies to its parse workers undecoded).
   * Throws once `bytes` went to a worker (`ParsePool.read`) before it was read.
   */
  readonly body: string;
  etag: string | null;
  lastModified: string | null;
  finalUrl: string;
}

/** Decides whether a resolved (or literal) address may be connected to; true refuses it. */
export type AddressPolicy = (ip: string) => boolean;

const DEFAULTS = { timeoutMs: 20_000, maxBytes: 10 * 1024 * 1024, maxRedirects: 5 };
const USER_AGENT = `calsync/${SDK_VERSION}`;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// setTimeout fires at once (with a warning on stderr) for anything longer than this.
const MAX_TIMER_MS = 2_147_483_647;
/** The policy of `--allow-private-networks`: nothing is refused. */
export const allowAll: AddressPolicy = () => false;
const DISCARD_MAX_BYTES = 64 * 1024;
const DISCARD_MAX_MS = 1000;

// One pool per policy (in practice two: guarded and allowAll). The lookup runs on every new
// connection, so each redirect hop and every address a name resolves to is checked where it is connected.
const agents = new Map<AddressPolicy, Agent>();
/** The shared undici pool whose DNS lookup refuses what `policy` blocks (webhook deliveries use it too). */
export function agentFor(policy: AddressPolicy): Agent {
  let agent = agents.get(policy);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(false, { isBlocked: policy }) } });
    agents.set(policy, agent);
  }
  return agent;
}

/** Fetches a feed URL and returns its body, `not_modified`, or a `SyncError` with a masked, human message. */
export function fetchFeed(url: string, options: FetchFeedOptions = {}): Promise<FetchFeedResult> {
  return fetchFeedGuarded(url, options, isBlockedAddress);
}

/**
 * `fetchFeed` with `isBlocked` deciding which addresses are private. Internal: tests use it to let a
 * loopback server stand in for a public host; `fetchFeed` always passes `isBlockedAddress`.
 */
export async function fetchFeedGuarded(url: string, options: FetchFeedOptions, isBlocked: AddressPolicy): Promise<FetchFeedResult> {
  const timeoutMs = Math.min(Math.max(options.timeoutMs ?? DEFAULTS.timeoutMs, 1), MAX_TIMER_MS);
  const maxBytes = options.maxBytes ?? DEFAULTS.maxBytes;
  const maxRedirects = options.maxRedirects ?? DEFAULTS.maxRedirects;
  const policy = options.allowPrivateNetworks ? allowAll : isBlocked;

  // One canceller for the whole fetch: the deadline and the caller's signal both end every hop and the body.
  const cancel = new Cancel();
  let deadlinePassed = false;
  const timer = setTimeout(() => {
    deadlinePassed = true;
    cancel.abort();
  }, timeoutMs);
  const onAbort = () => cancel.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const aborted = (): FetchFeedResult =>
    deadlinePassed ? timedOut(timeoutMs) : fail("fetch_failed", "fetch of the feed was cancelled");

  try {
    if (options.signal?.aborted) return aborted();
    let current = toHttpUrl(url);
    if (typeof current === "string") return fail("fetch_failed", current);
    const seen = new Set<string>();

    for (let hop = 0; ; hop++) {
      // Node connects to an IP literal without a lookup, so literals are checked here, on every hop.
      const literal = ipLiteralOf(current.hostname);
      if (literal && policy(literal)) return blocked(current.hostname, literal);
      seen.add(current.href);

      let exchange: Exchange;
      let head: ResponseHead;
      try {
        exchange = startExchange(agentFor(policy), { url: current, headers: requestHeaders(current, options), cancel, timeoutMs });
        head = await exchange.head;
      } catch (error) {
        return cancel.aborted ? aborted() : networkFailure(error, current);
      }
      const { statusCode, headers } = head;
      if (REDIRECTS.has(statusCode) && headers.location) {
        discard(exchange);
        const next = toHttpUrl(first(headers.location) ?? "", current);
        if (typeof next === "string") return fail("fetch_failed", `feed redirected to an unusable address: ${next}`);
        if (seen.has(next.href)) return fail("fetch_failed", `feed redirects in a loop (${maskUrl(next.href)})`);
        if (hop >= maxRedirects) return fail("fetch_failed", `feed redirected more than ${maxRedirects} times`);
        current = next;
        continue;
      }
      if (statusCode === 304 && (options.etag || options.lastModified)) {
        discard(exchange);
        return { kind: "not_modified" };
      }
      if (statusCode < 200 || statusCode > 299) {
        discard(exchange);
        // Only these two ask a client to come back later (RFC 9110 §10.2.3); elsewhere the header means nothing.
        const wait = statusCode === 429 || statusCode === 503 ? parseRetryAfter(first(headers["retry-after"]), new Date()) : undefined;
        return httpError(statusCode, wait);
      }
      const declared = Number(first(headers["content-length"]));
      if (Number.isFinite(declared) && declared > maxBytes) {
        exchange.abort();
        return tooLarge(maxBytes);
      }

      let read: BodyResult;
      try {
        read = await exchange.read(first(headers["content-encoding"]), maxBytes);
      } catch (error) {
        return cancel.aborted ? aborted() : networkFailure(error, current);
      }
      if (read.kind === "too_large") return tooLarge(maxBytes);
      if (read.kind === "bad_encoding") return fail("fetch_failed", `feed used an unsupported content encoding (${read.encoding})`);
      if (read.kind === "corrupt") return fail("fetch_failed", "feed body could not be decompressed");
      return fetched(read.bytes, {
        etag: first(headers.etag) ?? null,
        lastModified: first(headers["last-modified"]) ?? null,
        finalUrl: current.href,
      });
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

function fetched(bytes: Uint8Array, head: Pick<FetchedFeed, "etag" | "lastModified" | "finalUrl">): FetchedFeed {
  let text: string | undefined;
  const length = bytes.byteLength;
  return {
    kind: "ok",
    bytes,
    get body() {
      // Bytes handed to a parse worker are gone from this thread, and TextDecoder would read them as "" without a word.
      if (text === undefined && bytes.byteLength !== length) throw new Error("the feed's bytes were handed to a parse worker: read `body` before `pool.read`");
      return (text ??= decodeBody(bytes));
    },
    ...head,
  };
}

/**
 * What ends a fetch: undici takes an EventEmitter as a request's signal, and one costs a fiftieth of
 * Node 20's AbortController with its listener (0.01 ms per fetch, measured in bench/fetch-overhead.js).
 */
class Cancel extends EventEmitter {
  aborted = false;
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit("abort");
  }
}

/** Parses a feed URL (relative to `base` for a redirect); `webcal(s):` means `https:`. Returns a message on failure. */
export function toHttpUrl(raw: string, base?: URL): URL | string {
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

function requestHeaders(url: URL, options: FetchFeedOptions): Record<string, string> {
  const headers: Record<string, string> = {
    accept: "text/calendar, */*;q=0.5",
    "accept-encoding": "gzip, deflate, br",
    "user-agent": options.userAgent ?? USER_AGENT,
  };
  if (options.etag) headers["if-none-match"] = options.etag;
  if (options.lastModified) headers["if-modified-since"] = options.lastModified;
  // Credentials come from this hop's URL only, so a redirect never carries them to another host.
  if (url.username || url.password) {
    const credentials = `${safeDecode(url.username)}:${safeDecode(url.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
  }
  return headers;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Lets go of a body calsync does not read (a 304's, a redirect's, an error page's) while keeping the
 * connection for the next fetch: a 304 has no body, so it ends at once; any other gets a second and 64 KiB
 * at most, so a server trickling an error page cannot hold a socket once the fetch has returned.
 */
function discard(exchange: Exchange): void {
  exchange.discard({ maxBytes: DISCARD_MAX_BYTES, graceMs: DISCARD_MAX_MS });
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
