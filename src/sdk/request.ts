// One API call: attempts with a fresh timeout each, retries with backoff, typed errors.
// We drive the attempts ourselves because ofetch reuses an already-aborted signal across retries.
import { APIError, ConnectionError, TimeoutError } from "./errors.js";
import type { ResolvedClientOptions } from "./options.js";
import { abortErrorOf, isRetryableStatus, mayRepeat, retryDelayMs, sleep } from "./retry.js";
import { SDK_VERSION } from "./version.js";

/** An answer that came back in time, body read as text (already scrubbed of the API key). */
interface Answer {
  status: number;
  headers: Headers;
  text: string;
  redirected: boolean;
}

/** A successful (2xx) answer, body parsed as JSON. */
export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** One call of the API, before any attempt is made. */
export interface ApiRequest {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Path under `baseURL`, starting with `/`, path segments already encoded. */
  path: string;
  /** Query parameters; `undefined` values are left out. */
  query?: Record<string, string | number | undefined> | undefined;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as `Idempotency-Key` (CONTRACT §14): makes a POST, PATCH or DELETE safe to retry. */
  idempotencyKey?: string | undefined;
  /** The call is safe to repeat without a key (a sync: an unchanged feed reports 0/0/0). */
  repeatable?: boolean | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Sends `request` and returns the 2xx answer; retries what is worth retrying (and safe to repeat,
 * see `mayRepeat`) and throws `APIError`, `ConnectionError`, `TimeoutError` or `AbortError` otherwise.
 */
export async function requestJson(options: ResolvedClientOptions, request: ApiRequest): Promise<JsonAnswer> {
  const { signal } = request;
  const url = urlOf(options.baseURL, request);
  const init = initOf(options, request);
  const maxRetries = mayRepeat(request.method, request.idempotencyKey, request.repeatable) ? options.maxRetries : 0;
  for (let retry = 0; ; retry++) {
    if (signal?.aborted) throw abortErrorOf(signal);
    const canRetry = retry < maxRetries;
    let answer: Answer;
    try {
      answer = await attempt(options, url, init, signal);
    } catch (error) {
      if (!(error instanceof ConnectionError) || !canRetry) throw error;
      await sleep(retryDelayMs(retry) ?? 0, signal);
      continue;
    }
    if (answer.redirected) throw APIError.from(answer.status, parseBody(answer.text), answer.headers);
    if (answer.status >= 200 && answer.status < 300) return okAnswer(answer);
    const delay = canRetry && isRetryableStatus(answer.status) ? retryDelayMs(retry, answer.headers) : undefined;
    if (delay === undefined) throw APIError.from(answer.status, parseBody(answer.text), answer.headers);
    await sleep(delay, signal);
  }
}

/** POSTs to `path` (no body) and returns the 2xx answer; a sync, repeated safely on failure. */
export function postJson(options: ResolvedClientOptions, path: string, signal?: AbortSignal): Promise<JsonAnswer> {
  return requestJson(options, { method: "POST", path, repeatable: true, signal });
}

function urlOf(baseURL: string, request: ApiRequest): string {
  if (request.query === undefined) return `${baseURL}${request.path}`;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query)) {
    if (value !== undefined) query.set(name, String(value));
  }
  const search = query.toString();
  return `${baseURL}${request.path}${search ? `?${search}` : ""}`;
}

/** What every attempt of `request` sends (the same headers and body each time, key included). */
function initOf(options: ResolvedClientOptions, request: ApiRequest): RequestInit {
  const headers = requestHeaders(options);
  if (request.body !== undefined) headers["content-type"] = "application/json";
  if (request.idempotencyKey !== undefined) headers["idempotency-key"] = request.idempotencyKey;
  return {
    method: request.method,
    headers,
    ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    redirect: "manual",
  };
}

/** One request with its own time limit; the caller's signal cancels it too. */
async function attempt(options: ResolvedClientOptions, url: string, init: RequestInit, signal?: AbortSignal): Promise<Answer> {
  // A fresh controller per attempt (not AbortSignal.any, missing in older runtimes): the timer is
  // cleared when the attempt ends, and a timed-out attempt never poisons the next one.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeout);
  const onAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const response = await options.fetch(url, { ...init, signal: controller.signal });
    // Reading the body is part of the attempt, so the time limit and the caller's signal cover it.
    const text = scrub(await response.text(), options.apiKey);
    const redirected = response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400);
    return { status: response.status, headers: response.headers, text, redirected };
  } catch (error) {
    if (signal?.aborted) throw abortErrorOf(signal);
    if (timedOut) {
      throw new TimeoutError(`calsync: no answer from ${url} within ${options.timeout} ms`, { cause: error });
    }
    throw new ConnectionError(`calsync: could not reach ${url}: ${scrub(reasonOf(error), options.apiKey)}`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

function requestHeaders(options: ResolvedClientOptions): Record<string, string> {
  // `user-agent` is a forbidden header in browsers, so the SDK names itself in its own header.
  const headers: Record<string, string> = { accept: "application/json", "x-calsync-client": `sdk/${SDK_VERSION}` };
  for (const [name, value] of Object.entries(options.headers)) {
    if (name.toLowerCase() !== "x-api-key") headers[name.toLowerCase()] = value;
  }
  headers["x-api-key"] = options.apiKey;
  return headers;
}

function okAnswer(answer: Answer): JsonAnswer {
  const body = parseBody(answer.text);
  if (typeof body === "string" || body === undefined) throw APIError.from(answer.status, body, answer.headers);
  return { status: answer.status, headers: answer.headers, body };
}

/** JSON when the text is JSON, else the text itself; `undefined` for an empty body. */
function parseBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

// Node's fetch says only "fetch failed"; the useful part (ECONNREFUSED, ENOTFOUND) is in the cause.
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string" && cause.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

// Some proxies echo request headers into their error pages; keep the key out of every error.
// Keys too short to be real tokens (`cs_` + 32) are left alone, or "k" would mangle every word.
function scrub(text: string, apiKey: string): string {
  return apiKey.length < 8 ? text : text.split(apiKey).join("[redacted]");
}

/** Sends one API call with the client's options: what resources are given instead of the options themselves. */
export type Transport = (request: ApiRequest) => Promise<JsonAnswer>;
