// The answers of the OpenAPI document's operations: headers, error bodies narrowed to their codes, and
// `resourceErrors`, every error status a resource route really answers (add a route: call it with its own).
import type { ApiErrorCode } from "../../types.js";

/** A `$ref` into `components`. */
export const ref = (kind: "schemas" | "headers" | "responses" | "links", name: string) => ({ $ref: `#/components/${kind}/${name}` });

export const HEADERS = {
  "x-request-id": { description: "Id of this request, also in the server's log (a valid incoming one is echoed).", schema: { type: "string" } },
  "RateLimit-Limit": {
    description: "Requests allowed per window and token: sync's budget on the sync route, the resource routes' own on theirs. Absent when the server runs without a rate limit.",
    schema: { type: "integer", minimum: 1 },
  },
  "RateLimit-Remaining": {
    description: "Sync requests this token has left in the current window; on an answer that counted no token (401, 404, 405, this document), a whole window's allowance.",
    schema: { type: "integer", minimum: 0 },
  },
  "RateLimit-Reset": {
    description: "Seconds until the current window ends and the token's full allowance returns; on an answer that counted no token, the window's length.",
    schema: { type: "integer", minimum: 0 },
  },
  "Retry-After": {
    description: "Whole seconds to wait before trying again: on 429 until this token's window ends, on 503 for the database.",
    schema: { type: "integer", minimum: 1 },
  },
  "WWW-Authenticate": { description: "Always `ApiKey`.", schema: { type: "string", const: "ApiKey" } },
  Allow: { description: "The methods this path takes (the 405's message names them too).", schema: { type: "string" } },
} as const;

export type HeaderName = keyof typeof HEADERS;

export const RATE_HEADERS: HeaderName[] = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"];

/** `x-request-id` and `names`, as refs to `components.headers`. */
export function headersOf(names: HeaderName[]) {
  return Object.fromEntries(["x-request-id" as const, ...names].map((name) => [name, ref("headers", name)]));
}

/** An error answer: `body` (a `components.schemas` name) with `error.code` narrowed to the codes this status can carry. */
export function errorAnswer(description: string, codes: ApiErrorCode[], headers: HeaderName[] = [], body: "ErrorBody" | "ResourceErrorBody" = "ErrorBody") {
  const narrowed = {
    allOf: [ref("schemas", body), { type: "object", properties: { error: { type: "object", properties: { code: { enum: codes } } } } }],
  };
  return { description, headers: headersOf(headers), content: { "application/json": { schema: narrowed } } };
}

// Node's HTTP parser answers these before any route, on every path (client-error.ts): no rate-limit headers.
const PARSER = {
  "400": "The request could not be read as HTTP (e.g. a control character in a header).",
  "408": "The request did not arrive in time.",
  "413": "The request's chunk extensions are too large.",
  "431": "The request's headers are too large.",
} as const;

/** The errors every operation can answer: the HTTP parser's, a fault, an unreachable database. */
export const COMMON_ERRORS = {
  "400": errorAnswer(PARSER["400"], ["bad_request"]),
  "408": errorAnswer(PARSER["408"], ["bad_request"]),
  "413": errorAnswer(PARSER["413"], ["request_too_large"]),
  "431": errorAnswer(PARSER["431"], ["request_too_large"]),
  "500": errorAnswer("Unexpected fault; the message quotes the request id to look up in the server's log.", ["internal_error"], RATE_HEADERS),
  "503": errorAnswer("The database cannot be reached, or the server is stopping; retry after `Retry-After`.", ["unavailable"], ["Retry-After", ...RATE_HEADERS]),
};

/** What a resource operation answers beyond every route's errors, by status: why, and which `error.code`s. */
export type OwnErrors = Partial<Record<"400" | "404" | "409" | "413" | "422", { description: string; codes: ApiErrorCode[] }>>;

/**
 * Every error status a resource route (one behind `guarded`, CONTRACT §14) answers, with the resource error
 * body: the HTTP parser's 400/408/413/431, the guard's 401/403/429, 405 on its path, a repeated query
 * parameter's 400, 500 and 503, and the operation's `own` (its 400 and 413 described beside the parser's).
 */
export function resourceErrors(own: OwnErrors = {}): Record<string, ReturnType<typeof errorAnswer>> {
  const answer = (description: string, codes: ApiErrorCode[], headers: HeaderName[] = [], rated = true) =>
    errorAnswer(description, codes, [...headers, ...(rated ? RATE_HEADERS : [])], "ResourceErrorBody");
  const parser = (status: keyof typeof PARSER) => `${PARSER[status]} The HTTP parser's answer carries no RateLimit headers.`;
  const bad = ["A query parameter given more than once (`error.field` names it).", own["400"]?.description, parser("400")];
  const errors: Record<string, ReturnType<typeof errorAnswer>> = {
    "400": answer(bad.filter(Boolean).join(" "), ["bad_request"]),
    "401": answer("The token is missing, malformed, unknown, expired or revoked.", ["missing_token", "invalid_token", "expired_token", "revoked_token"], ["WWW-Authenticate"]),
    "403": answer("The token lacks the route's scope (`read` for GET, `write` for POST, PATCH and DELETE); the message names it.", ["insufficient_scope"]),
    "405": answer("Another method on this path; `Allow` and the message name the methods it takes.", ["method_not_allowed"], ["Allow"]),
    "408": answer(PARSER["408"], ["bad_request"], [], false),
    "413": answer([own["413"]?.description, parser("413")].filter(Boolean).join(" "), ["request_too_large"]),
    "429": answer("The token used up its requests to the resource routes for this window (apart from sync's).", ["rate_limited"], ["Retry-After"]),
    "431": answer(PARSER["431"], ["request_too_large"], [], false),
    "500": COMMON_ERRORS["500"],
    "503": COMMON_ERRORS["503"],
  };
  for (const status of ["404", "409", "422"] as const) {
    const mine = own[status];
    if (mine) errors[status] = answer(mine.description, mine.codes);
  }
  return Object.fromEntries(Object.entries(errors).sort(([a], [b]) => a.localeCompare(b)));
}
