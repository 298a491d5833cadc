// Commands that call a calsync server (remote `sync`, `reservation`, `availability`): one SDK client
// from --base-url/--api-key (or CALSYNC_BASE_URL/CALSYNC_API_KEY), and the SDK's typed errors turned
// into the exit codes of CONTRACT §6. The API key is never printed.
import {
  APIError,
  AbortError,
  AuthenticationError,
  CalsyncError,
  ConnectionError,
  createClient,
  PermissionDeniedError,
  TimeoutError,
  type CalsyncClient,
} from "../sdk/index.js";
import { DEFAULT_BASE_URL } from "../sdk/options.js";
import { CliFailure, EXIT, UsageError, type CliContext } from "./context.js";
import { callDeadline, WaitBeyondDeadline } from "./retry-deadline.js";

/** Flags of a remote command. */
export interface RemoteOptions {
  /** `--base-url`; falls back to `CALSYNC_BASE_URL`, then `http://localhost:8787`. */
  baseUrl?: string | undefined;
  /** `--api-key`; falls back to `CALSYNC_API_KEY`. */
  apiKey?: string | undefined;
  /** `--timeout`: deadline of the whole call (retries included), in milliseconds. @default the SDK's 120000 per attempt */
  timeout?: number | undefined;
}

/** A client ready for one command, with what its calls need. */
export interface RemoteConnection {
  client: CalsyncClient;
  /** Ends the call at `--timeout` (absent without one). */
  signal: AbortSignal | undefined;
  /** The CLI failure (message and exit code) for an error a call threw; secrets removed. */
  failure(error: unknown): unknown;
  /** Removes the API key from a text that may echo it. */
  hide(text: string): string;
}

/**
 * Builds the client, or throws `UsageError` (no key; a bad --base-url). `localHint` ends the no-key
 * message with the command's way to work without a server (", or … with --local").
 */
export function connectRemote(options: RemoteOptions, context: CliContext, localHint: string): RemoteConnection {
  const { env } = context.io;
  const apiKey = (options.apiKey ?? env.CALSYNC_API_KEY ?? "").trim();
  if (apiKey === "") {
    throw new UsageError(`no API key: pass --api-key KEY or set CALSYNC_API_KEY (create one with \`calsync token create\`), ${localHint}`);
  }
  const baseURL = options.baseUrl ?? (env.CALSYNC_BASE_URL?.trim() || DEFAULT_BASE_URL);
  const hide = redactor(apiKey);
  // --timeout bounds the whole call: each attempt gets it, and so does the run of attempts and waits.
  const deadline = callDeadline(options.timeout);
  let client: CalsyncClient;
  try {
    // Both values are passed explicitly, so the SDK's own look at process.env never applies here.
    client = createClient({ apiKey, baseURL, timeout: options.timeout, fetch: deadline.fetch });
  } catch (error) {
    // The SDK names its option; the user typed a flag or set a variable.
    const source = options.baseUrl !== undefined ? "--base-url" : "CALSYNC_BASE_URL";
    if (error instanceof CalsyncError) throw new UsageError(hide(withoutPrefix(error.message).replace(/^baseURL\b/, source)));
    throw error;
  }
  return {
    client,
    signal: deadline.signal,
    failure: (error) => failureOf(error, client.baseURL, options.timeout, hide),
    hide,
  };
}

/** The CLI failure (message and exit code) for an error of the SDK. */
function failureOf(error: unknown, baseURL: string, timeout: number | undefined, hide: (text: string) => string): unknown {
  const fail = (message: string, code: number) => new CliFailure(hide(message), code);
  if (error instanceof AuthenticationError) {
    return fail(`authentication failed (${error.code}): ${apiMessage(error)}. ${authHint(error.code, baseURL)}`, EXIT.auth);
  }
  // A token without the route's scope (CONTRACT §14) is the key's problem too: the same exit code as a bad key.
  if (error instanceof PermissionDeniedError) {
    return fail(`${apiMessage(error)} (${error.code}): use a token that has it, e.g. one from \`calsync token create --scope sync,read,write\``, EXIT.auth);
  }
  if (error instanceof TimeoutError) return fail(withoutPrefix(error.message), EXIT.network);
  if (error instanceof AbortError && error.cause instanceof WaitBeyondDeadline) return fail(error.cause.message, EXIT.network);
  if (error instanceof AbortError && isTimeout(error.cause)) {
    return fail(`no answer from ${baseURL} within ${timeout} ms (--timeout)`, EXIT.network);
  }
  if (error instanceof ConnectionError) {
    return fail(`${withoutPrefix(error.message)} (is \`calsync serve\` running there? see --base-url)`, EXIT.network);
  }
  if (error instanceof APIError) {
    // A 500's message already quotes the request id; say it once.
    const requestId = error.requestId && !error.message.includes(error.requestId) ? ` (request id ${error.requestId})` : "";
    const hint = error.status === 404 ? "; is --base-url the address of a calsync server?" : "";
    return fail(`the server answered ${error.message}${requestId}${hint}`, EXIT.network);
  }
  if (error instanceof CalsyncError) return fail(withoutPrefix(error.message), EXIT.failure);
  return error;
}

/** An API error's message without the SDK's `409 nights_unavailable: ` prefix. */
export function apiMessage(error: APIError): string {
  return error.message.replace(/^\d+ \S+: /, "");
}

function authHint(code: string, baseURL: string): string {
  switch (code) {
    case "expired_token":
    case "revoked_token":
      return `Create a new token in the dashboard (${baseURL.replace(/\/+$/, "")}/settings/tokens) or with \`calsync token create\` on the server's machine.`;
    case "missing_token":
      return "Pass --api-key KEY or set CALSYNC_API_KEY.";
    default:
      return "Check --api-key or CALSYNC_API_KEY (tokens look like cs_ followed by 32 letters and digits).";
  }
}

// AbortSignal.timeout() aborts with a DOMException named TimeoutError.
function isTimeout(reason: unknown): boolean {
  return typeof reason === "object" && reason !== null && (reason as { name?: unknown }).name === "TimeoutError";
}

// The SDK prefixes its messages for library users; the CLI already says "error:".
function withoutPrefix(message: string): string {
  return message.replace(/^calsync: /, "");
}

// Whatever a server or proxy echoes back, the key itself never reaches the terminal or a log. Like the
// SDK, keys too short to be tokens are left alone, or a key "k" would blank out every "k" of a message.
function redactor(apiKey: string): (text: string) => string {
  return (text) => (apiKey.length < 8 ? text : text.split(apiKey).join("[redacted]"));
}
