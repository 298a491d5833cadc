// The OpenAPI 3.1 document of API v1, built from schemas.ts: served at GET /api/v1/openapi.json and
// written to dist/openapi.json at build time (the package's `calsync/openapi.json` export).
import { SDK_VERSION } from "../../sdk/version.js";
import { OPENAPI_PATH, SYNC_PATH } from "../routes.js";
import { COMMON_ERRORS, errorAnswer, HEADERS, headersOf, RATE_HEADERS, ref } from "./answers.js";
import { withRefs } from "./refs.js";
import { resourcePaths } from "./resource-paths.js";
import { RESOURCE_SCHEMAS } from "./resource-schemas.js";
import { CHANNEL_SCHEMAS } from "./channel-schemas.js";
import { NAMED_SCHEMAS } from "./schemas.js";
import { WEBHOOK_SCHEMAS } from "./webhook-schemas.js";
import { WEBHOOK_EVENTS } from "./webhooks.js";

function syncAnswer(description: string) {
  return { description, headers: headersOf(RATE_HEADERS), content: { "application/json": { schema: ref("schemas", "SyncResponse") } } };
}

// What GET /api/v1/openapi.json answers, without $refs into itself: the fields every OpenAPI 3.1 document has.
const DOCUMENT_SCHEMA = {
  type: "object",
  description: "An OpenAPI 3.1 document (validate it with an OpenAPI 3.1 validator for the rest).",
  properties: {
    openapi: { type: "string", pattern: "^3\\.1\\.\\d+$" },
    info: { type: "object", properties: { title: { type: "string" }, version: { type: "string" } }, required: ["title", "version"] },
    paths: { type: "object" },
    webhooks: { type: "object" },
    components: { type: "object" },
  },
  required: ["openapi", "info", "paths"],
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
            "405": errorAnswer("A method other than POST on this path; `Allow` and the message name POST.", ["method_not_allowed"], ["Allow", ...RATE_HEADERS]),
            "429": errorAnswer("The token used up its sync requests for this window.", ["rate_limited"], ["Retry-After", ...RATE_HEADERS]),
            "431": COMMON_ERRORS["431"],
            "500": COMMON_ERRORS["500"],
            "503": COMMON_ERRORS["503"],
          },
        },
      },
      ...resourcePaths(),
      [OPENAPI_PATH]: {
        get: {
          operationId: "getOpenApiDocument",
          summary: "This document",
          security: [],
          responses: {
            "200": {
              description: "The OpenAPI 3.1 document of API v1.",
              headers: headersOf(RATE_HEADERS),
              content: { "application/json": { schema: DOCUMENT_SCHEMA } },
            },
            "405": errorAnswer("A method other than GET or HEAD on this path; `Allow` and the message name them.", ["method_not_allowed"], ["Allow", ...RATE_HEADERS]),
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
