// The client's options and the one place their defaults are resolved.
import { CalsyncError } from "./errors.js";

/** A `fetch`-compatible function (the global one, undici's, a test double, a proxy-aware one). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Options of `createClient`. Every field is optional; defaults are listed per field. */
export interface ClientOptions {
  /**
   * API token (`cs_…`) sent as `x-api-key`. Surrounding whitespace is trimmed.
   * @default the `CALSYNC_API_KEY` environment variable, where `process.env` exists
   */
  apiKey?: string | undefined;
  /**
   * Address of the calsync server, with or without a trailing slash; a path prefix is kept
   * (`https://example.com/calsync`). Redirects are not followed, so the key stays with this address.
   * @default the `CALSYNC_BASE_URL` environment variable, else `"http://localhost:8787"`
   */
  baseURL?: string | undefined;
  /**
   * Time limit of one attempt in milliseconds, including reading the answer. Each retry gets
   * a fresh limit. A sync of many slow feeds can take a while, hence the generous default.
   * @default 120000 (ms)
   */
  timeout?: number | undefined;
  /**
   * How many times to retry after a connection error, timeout, 408, 429 or 5xx (so at most
   * `maxRetries + 1` requests). `0` disables retries.
   * @default 2 (retries)
   */
  maxRetries?: number | undefined;
  /**
   * `fetch` implementation to use, e.g. one with a proxy agent or a test double.
   * @default `globalThis.fetch`, looked up at call time
   */
  fetch?: FetchLike | undefined;
  /**
   * Extra headers sent with every request (they cannot replace `x-api-key`).
   * @default {} (none)
   */
  headers?: Record<string, string> | undefined;
}

/** `ClientOptions` with every default applied and checked. */
export interface ResolvedClientOptions {
  apiKey: string;
  baseURL: string;
  timeout: number;
  maxRetries: number;
  fetch: FetchLike;
  headers: Record<string, string>;
}

/** Default `baseURL`: what `calsync serve` listens on. */
export const DEFAULT_BASE_URL = "http://localhost:8787";
/** Default `timeout`, in ms. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Default `maxRetries`. */
export const DEFAULT_MAX_RETRIES = 2;

/** Applies defaults (environment only where `process.env` exists) and throws `CalsyncError` for unusable options. */
export function resolveClientOptions(options: ClientOptions = {}): ResolvedClientOptions {
  const apiKey = (options.apiKey ?? readEnv("CALSYNC_API_KEY") ?? "").trim();
  if (apiKey === "") {
    throw new CalsyncError(
      "calsync: no API key. Pass { apiKey } to createClient() or set the CALSYNC_API_KEY environment variable " +
        "(create a token with `calsync token create`).",
    );
  }
  // Never echo the key itself: it is a secret even when it is wrong.
  if (/[\u0000-\u001f\u007f]/.test(apiKey)) {
    throw new CalsyncError("calsync: the API key contains control characters (a pasted line break?)");
  }
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw new CalsyncError(`calsync: timeout must be a positive number of milliseconds, got ${String(timeout)}`);
  }
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new CalsyncError(`calsync: maxRetries must be a whole number ≥ 0, got ${String(maxRetries)}`);
  }
  const fetch = options.fetch ?? globalFetch();
  return {
    apiKey,
    baseURL: normaliseBaseURL(options.baseURL ?? readEnv("CALSYNC_BASE_URL") ?? DEFAULT_BASE_URL),
    timeout,
    maxRetries,
    fetch,
    headers: { ...options.headers },
  };
}

function normaliseBaseURL(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new CalsyncError(`calsync: baseURL is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CalsyncError(`calsync: baseURL must start with http:// or https://, got ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new CalsyncError("calsync: baseURL must not contain credentials; pass the token as apiKey");
  }
  url.search = "";
  url.hash = "";
  return url.href.replace(/\/+$/, "");
}

// Looked up per call (not bound at creation) so a fetch installed later is used, and called
// without a receiver: browsers reject `fetch` invoked as a method of another object.
function globalFetch(): FetchLike {
  if (typeof globalThis.fetch !== "function") {
    throw new CalsyncError("calsync: this runtime has no global fetch; pass { fetch } to createClient()");
  }
  return (input, init) => globalThis.fetch(input, init);
}

// The SDK runs in browsers and edge runtimes too, so `process` may be absent or guarded (Deno).
function readEnv(name: string): string | undefined {
  try {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
    const value = env?.[name]?.trim();
    return value ? value : undefined;
  } catch {
    return undefined;
  }
}
