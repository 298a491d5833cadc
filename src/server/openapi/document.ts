// The OpenAPI 3.1 document of API v1, built from schemas.ts: served at GET /api/v1/openapi.json and
// written to dist/openapi.json at build time (the package's `calsync/openapi.json` export).
import { SDK_VERSION } from "../../sdk/version.js";
import type { ApiErrorCode } from "../../types.js";
import { OPENAPI_PATH, SYNC_PATH } from "../routes.js";
import { withRefs } from "./refs.js";
import { resourcePaths } from "./resource-paths.js";
import { RESOURCE_SCHEMAS } from "./resource-schemas.js";
import { CHANNEL_SCHEMAS } from "./channel-schemas.js";
import { NAMED_SCHEMAS } from "./schemas.js";
import { WEBHOOK_SCHEMAS } from "./webhook-schemas.js";
import { WEBHOOK_EVENTS } from "./webhooks.js";

const ref = (kind: "schemas" | "headers" | "responses", name: string) => ({ $ref: `#/components/${kind}/${name}` });

const HEADERS = {
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
  Allow: { description: "The methods this path takes.", schema: { type: "string" } },
} as const;

type HeaderName = keyof typeof HEADERS;

const RATE_HEADERS: HeaderName[] = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"];

function headersOf(names: HeaderName[]) {
  return Object.fromEntries(["x-request-id" as const, ...names].map((name) => [name, ref("headers", name)]));
}

function syncAnswer(description: string) {
  return { description, headers: headersOf(RATE_HEADERS), content: { "application/json": { schema: ref("schemas", "SyncResponse") } } };
}

// The error body with `error.code` narrowed to the codes this status can carry.
function errorAnswer(description: string, codes: ApiErrorCode[], headers: HeaderName[] = []) {
  const narrowed = {
    allOf: [
      ref("schemas", "ErrorBody"),
      { type: "object", properties: { error: { type: "object", properties: { code: { enum: codes } } } } },
    ],
  };
  return { description, headers: headersOf(headers), content: { "application/json": { schema: narrowed } } };
}

// 400, 408, 413 and 431 come from Node's HTTP parser, before any route: no rate-limit headers.
const COMMON_ERRORS = {
  "400": errorAnswer("The request could not be read as HTTP (e.g. a control character in a header).", ["bad_request"]),
  "408": errorAnswer("The request did not arrive in time.", ["bad_request"]),
  "413": errorAnswer("The request's chunk extensions are too large.", ["request_too_large"]),
  "431": errorAnswer("The request's headers are too large.", ["request_too_large"]),
  "500": errorAnswer("Unexpected fault; the message quotes the request id to look up in the server's log.", ["internal_error"], RATE_HEADERS),
  "503": errorAnswer("The database cannot be reached; retry after `Retry-After`.", ["unavailable"], ["Retry-After", ...RATE_HEADERS]),
};

function buildDocument() {
  const schemas = { ...NAMED_SCHEMAS, ...RESOURCE_SCHEMAS, ...CHANNEL_SCHEMAS, ...WEBHOOK_SCHEMAS };
  return {
    openapi: "3.1.0",
    info: {
      title: "calsync API",
      version: SDK_VERSION,
      summary: "Sync rental booking calendars (.ics feeds) of an owner and report per calendar what changed.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "{baseUrl}", variables: { baseUrl: { default: "http://localhost:8787", description: "Where `calsync serve` listens." } } }],
    security: [{ ApiKey: [] }],
    paths: {
      [SYNC_PATH]: {
        post: {
          operationId: "syncCalendars",
          summary: "Synchronise every calendar of the token's owner",
          description:
            "No request body (any body is ignored). A request arriving while the owner's sync runs waits for that run and " +
            "gets its result; it still counts against the rate limit. Any other method answers 405 with `Allow: POST`.",
          responses: {
            "200": syncAnswer("Every calendar synchronised (also when the owner has none)."),
            "207": syncAnswer("At least one calendar failed; see `results[].result.error`."),
            "400": COMMON_ERRORS["400"],
            "408": COMMON_ERRORS["408"],
            "413": COMMON_ERRORS["413"],
            "401": errorAnswer(
              "The token is missing, malformed, unknown, expired or revoked.",
              ["missing_token", "invalid_token", "expired_token", "revoked_token"],
              ["WWW-Authenticate", ...RATE_HEADERS],
            ),
            "405": errorAnswer("A method other than POST on this path.", ["method_not_allowed"], ["Allow", ...RATE_HEADERS]),
            "429": errorAnswer("The token used up its sync requests for this window.", ["rate_limited"], ["Retry-After", ...RATE_HEADERS]),
            "431": COMMON_ERRORS["431"],
            "500": COMMON_ERRORS["500"],
            "503": COMMON_ERRORS["503"],
          },
        },
      },
      ...resourcePaths(ref, headersOf(RATE_HEADERS), COMMON_ERRORS),
      [OPENAPI_PATH]: {
        get: {
          operationId: "getOpenApiDocument",
          summary: "This document",
          security: [],
          responses: {
            "200": {
              description: "The OpenAPI 3.1 document of API v1.",
              headers: headersOf(RATE_HEADERS),
              content: { "application/json": { schema: { type: "object" } } },
            },
            "405": errorAnswer("A method other than GET or HEAD on this path.", ["method_not_allowed"], ["Allow", ...RATE_HEADERS]),
            ...COMMON_ERRORS,
          },
        },
      },
    },
    webhooks: WEBHOOK_EVENTS,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, withRefs(schema, schemas)])),
      headers: HEADERS,
      securitySchemes: {
        ApiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "An API token (`cs_…`) from `calsync token create` or the dashboard." },
      },
    },
  };
}

let built: ReturnType<typeof buildDocument> | undefined;

/** The OpenAPI 3.1 document of API v1 (built once; treat it as read-only). */
export function openApiDocument(): ReturnType<typeof buildDocument> {
  return (built ??= buildDocument());
}
