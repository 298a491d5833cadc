// Every error the SDK throws is a `CalsyncError`; users branch with `instanceof`, never by parsing messages.
import type { NightsConflict } from "../resource-types.js";
import type { ApiErrorCode } from "../types.js";

/** The 401 reasons of CONTRACT §2, carried by `AuthenticationError.code`. */
export type AuthenticationErrorCode = Extract<ApiErrorCode, `${string}_token`>;

/**
 * `APIError.code`: the server's `error.code`, or, when the answer was not a calsync error body,
 * `http_<status>` (e.g. a proxy's HTML 502), `unexpected_response` (a 2xx that is not the
 * answer expected) or `unexpected_redirect` (redirects are not followed, see `ClientOptions.baseURL`).
 */
export type APIErrorCode = ApiErrorCode | "unexpected_response" | "unexpected_redirect" | `http_${number}`;

/** Base class of every error thrown by the SDK (also thrown as-is for bad client options). */
export class CalsyncError extends Error {
  override name = "CalsyncError";
}

/** The server answered, but not with a successful sync response. */
export class APIError extends CalsyncError {
  override name = "APIError";
  /** HTTP status of the answer (0 for a browser's opaque redirect). */
  readonly status: number;
  readonly code: APIErrorCode;
  /** The answer's `x-request-id`, to quote when asking the server's operator. */
  readonly requestId: string | undefined;
  readonly headers: Headers;
  /** The parsed JSON body, or the raw text when the body was not JSON (`undefined` when empty). */
  readonly body: unknown;

  constructor(status: number, code: APIErrorCode, message: string, headers: Headers, body: unknown) {
    super(`${status} ${code}: ${message}`);
    this.status = status;
    this.code = code;
    this.requestId = headers.get("x-request-id") ?? undefined;
    this.headers = headers;
    this.body = body;
  }

  /** Builds the error for an answer: picks the subclass from the status (here only) and the code from the body. */
  static from(status: number, body: unknown, headers: Headers): APIError {
    const apiError = errorBodyOf(body);
    const code: APIErrorCode =
      apiError?.code ??
      (status === 0 || (status >= 300 && status < 400)
        ? "unexpected_redirect"
        : status < 300
          ? "unexpected_response"
          : `http_${status}`);
    const message = apiError?.message ?? describeUnexpected(status, body, headers);
    const Subclass = SUBCLASS_BY_STATUS[status] ?? APIError;
    return new Subclass(status, code, message, headers, body);
  }
}

/**
 * 401: the API key is missing, malformed, unknown, expired or revoked. Retrying will not help;
 * `code` says which (`missing_token`, `invalid_token`, `expired_token`, `revoked_token`).
 */
export class AuthenticationError extends APIError {
  override name = "AuthenticationError";
  /** The 401 reason; `http_401` when the 401 did not come from a calsync server (a proxy). */
  declare readonly code: AuthenticationErrorCode | "http_401";
}

/** 403 `insufficient_scope`: the token lacks the route's scope (`sync`, `read` or `write`); the message names it. */
export class PermissionDeniedError extends APIError {
  override name = "PermissionDeniedError";
}

/** 404 `not_found`: no such property or reservation for this token's owner (or a path this server lacks). */
export class NotFoundError extends APIError {
  override name = "NotFoundError";
}

/**
 * 409: `nights_unavailable` (some nights asked for are taken; `conflicts` lists the stays holding
 * them) or `not_direct` (a channel's reservation is read-only; `conflicts` is empty).
 */
export class ConflictError extends APIError {
  override name = "ConflictError";
  /** The stays that hold the nights asked for, as the server listed them. */
  readonly conflicts: NightsConflict[];

  constructor(status: number, code: APIErrorCode, message: string, headers: Headers, body: unknown) {
    super(status, code, message, headers, body);
    this.conflicts = conflictsOf(body);
  }
}

/** 422: a field is wrong (`invalid_request`, the message names it) or an `Idempotency-Key` was reused with another body. */
export class UnprocessableEntityError extends APIError {
  override name = "UnprocessableEntityError";
}

type APIErrorClass = new (status: number, code: APIErrorCode, message: string, headers: Headers, body: unknown) => APIError;

// The one place a status picks its class (openai-node's APIError.generate).
const SUBCLASS_BY_STATUS: Partial<Record<number, APIErrorClass>> = {
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
};

// `conflicts` sits beside `error` in the body; read it inside `error` too, and keep only well-formed entries.
function conflictsOf(body: unknown): NightsConflict[] {
  if (typeof body !== "object" || body === null) return [];
  const outer = (body as { conflicts?: unknown }).conflicts;
  const inner = ((body as { error?: { conflicts?: unknown } }).error ?? {}).conflicts;
  const list = Array.isArray(outer) ? outer : Array.isArray(inner) ? inner : [];
  return list.filter(
    (entry): entry is NightsConflict =>
      typeof entry === "object" &&
      entry !== null &&
      typeof (entry as NightsConflict).reservationId === "string" &&
      typeof (entry as NightsConflict).arrival === "string" &&
      typeof (entry as NightsConflict).departure === "string",
  );
}

/** No answer came back: DNS, refused or reset connection, TLS, or CORS in a browser. Retried. */
export class ConnectionError extends CalsyncError {
  override name = "ConnectionError";
}

/**
 * One attempt took longer than `ClientOptions.timeout`. It extends `ConnectionError` (as openai's
 * `APIConnectionTimeoutError` does) because it is retried like one and means "no answer in time".
 */
export class TimeoutError extends ConnectionError {
  override name = "TimeoutError";
}

/**
 * The caller's `signal` aborted the call (during a request or a retry wait); nothing is retried.
 * Named `AbortError` so `err.name === "AbortError"` checks written for `fetch` keep working;
 * `cause` is the signal's `reason`.
 */
export class AbortError extends CalsyncError {
  override name = "AbortError";
}

const EXCERPT_CHARS = 200;

function errorBodyOf(body: unknown): { code: APIErrorCode; message: string } | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== "string" || code === "") return undefined;
  return { code: code as APIErrorCode, message: typeof message === "string" ? message : code };
}

// A proxy's HTML page or a captive portal should still say what went wrong, in one short line.
function describeUnexpected(status: number, body: unknown, headers: Headers): string {
  if (status === 0 || (status >= 300 && status < 400)) {
    const location = headers.get("location");
    return (
      `the server redirected${location ? ` to ${excerpt(location)}` : ""}; the SDK does not follow ` +
      "redirects so the API key never goes to another address: set baseURL to the final address"
    );
  }
  if (body === undefined || body === "") return "empty body";
  const type = headers.get("content-type")?.split(";")[0]?.trim() || "no content type";
  if (typeof body === "string") {
    return `not a calsync API answer (${type}): "${excerpt(textOf(body))}"`;
  }
  const what = status < 300 ? "not the calsync answer expected" : "not a calsync error body";
  return `JSON that is ${what}: ${excerpt(JSON.stringify(body) ?? "")}`;
}

function textOf(body: string): string {
  return body
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&nbsp;/g, " ");
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS - 1)}…` : flat;
}
