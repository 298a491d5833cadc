// JSON answers of the API: every response is JSON, carries x-request-id, and errors share one body shape.
import type { ApiErrorCode, ErrorBody } from "../types.js";

/** What people read for each error code; never a stack trace, SQL, file path or secret. */
const MESSAGES: Record<ApiErrorCode, string> = {
  missing_token: "send your API token in the x-api-key header",
  invalid_token: "the API token is malformed or unknown",
  expired_token: "the API token has expired",
  revoked_token: "the API token has been revoked",
  not_found: "no such endpoint; the API is POST /api/v1/calendars/sync",
  method_not_allowed: "this path does not take this method",
  internal_error: "unexpected server error",
  bad_request: "the request could not be read as HTTP",
  request_too_large: "the request's headers are too large",
  rate_limited: "too many requests for this API token; retry after the time in Retry-After",
  unavailable: "the database cannot be reached; try again shortly",
  insufficient_scope: "the API token lacks the scope this route needs",
  nights_unavailable: "the nights asked for are taken",
  not_direct: "only direct stays can be changed; channel reservations are read-only",
  invalid_request: "the request body is not valid",
  idempotency_key_reused: "this Idempotency-Key was used with another body in the last 24 hours",
};

/** Reason phrases for the statuses the API answers with; without one, Node sends an empty phrase. */
export const REASONS: Record<number, string> = {
  200: "OK",
  201: "Created",
  207: "Multi-Status",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  408: "Request Timeout",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** The error body of CONTRACT §2 for `code`. */
export function errorBody(code: ApiErrorCode, message = MESSAGES[code]): ErrorBody {
  return { ok: false, error: { code, message } };
}

/** A JSON response with the request id and any extra headers. */
export function jsonResponse(
  status: number,
  body: unknown,
  requestId: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    statusText: REASONS[status] ?? "",
    headers: { "content-type": "application/json", "x-request-id": requestId, ...headers },
  });
}

/** An error response: the status, the error body of `code` (or `message`), the request id and any extra headers. */
export function errorResponse(
  status: number,
  code: ApiErrorCode,
  requestId: string,
  headers: Record<string, string> = {},
  message = code === "internal_error" ? `${MESSAGES.internal_error} (request id ${requestId})` : MESSAGES[code],
): Response {
  return jsonResponse(status, errorBody(code, message), requestId, headers);
}

/** 405 for `path` (as the OpenAPI document writes it), which takes only `allowed`: `Allow` and the message name them. */
export function methodNotAllowed(requestId: string, path: string, allowed: readonly string[]): Response {
  const methods = allowed.length > 1 ? `${allowed.slice(0, -1).join(", ")} or ${allowed.at(-1)}` : allowed.join("");
  return errorResponse(405, "method_not_allowed", requestId, { allow: allowed.join(", ") }, `use ${methods} for ${path}`);
}
