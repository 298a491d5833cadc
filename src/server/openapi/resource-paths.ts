// The paths of API v1's resources (CONTRACT §14) in the OpenAPI document, with every status each can answer.
import type { ApiErrorCode } from "../../types.js";
import { AVAILABILITY_PATH, CHANNELS_PATH, PROPERTIES_PATH, PROPERTY_PATH, PROPERTY_RESERVATIONS_PATH, RESERVATION_PATH } from "../routes.js";

type Ref = { $ref: string };
type Answer = (description: string, codes: ApiErrorCode[], headers?: string[]) => object;

/** `/api/v1/properties/:id` → `/api/v1/properties/{id}`. */
const openApiPath = (route: string) => route.replace(/:(\w+)/g, "{$1}");

/** The resource paths; `refs` builds `$ref`s, `headers` the rate-limit headers' refs, `common` the parser's errors. */
export function resourcePaths(ref: (kind: "schemas" | "headers", name: string) => Ref, rateHeaders: Record<string, Ref>, common: Record<string, object>) {
  const json = (schema: string) => ({ "application/json": { schema: ref("schemas", schema) } });
  const ok = (description: string, schema: string) => ({ description, headers: rateHeaders, content: json(schema) });
  const error: Answer = (description, codes, extra = []) => ({
    description,
    headers: { ...rateHeaders, ...Object.fromEntries(extra.map((name) => [name, ref("headers", name)])) },
    content: {
      "application/json": {
        schema: { allOf: [ref("schemas", "ResourceErrorBody"), { type: "object", properties: { error: { type: "object", properties: { code: { enum: codes } } } } }] },
      },
    },
  });
  const guarded = {
    "401": error("The token is missing, malformed, unknown, expired or revoked.", ["missing_token", "invalid_token", "expired_token", "revoked_token"], ["WWW-Authenticate"]),
    "403": error("The token lacks the route's scope (`read` for GET, `write` for POST, PATCH and DELETE); the message names it.", ["insufficient_scope"]),
    "429": error("The token used up its requests to the resource routes for this window (apart from sync's).", ["rate_limited"], ["Retry-After"]),
    "405": error("Another method on this path.", ["method_not_allowed"], ["Allow"]),
    "500": common["500"]!,
    "503": common["503"]!,
  };
  const notFound = error("No such id among the token owner's (another owner's id included).", ["not_found"]);
  const badQuery = error("A malformed `from`, `to`, `status`, `limit` or `cursor`, `to` not after `from`, or more than 732 nights; `error.field` names it.", ["bad_request"]);
  const id = (what: string) => ({ name: "id", in: "path", required: true, schema: { type: "string" }, description: `The ${what}'s id.` });
  const query = (name: string, description: string, schema: object = { type: "string" }) => ({ name, in: "query", required: false, schema, description });
  const page = [query("limit", "Rows per page, 1–500.", { type: "integer", minimum: 1, maximum: 500, default: 100 }), query("cursor", "`nextCursor` of the previous page.")];
  const idempotencyKey = {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    schema: { type: "string", minLength: 1, maxLength: 255 },
    description: "The same key with the same body within 24 h answers the first answer again and changes nothing; with another body, 422 `idempotency_key_reused`.",
  };
  const writeErrors = {
    "400": error("The body is not JSON, or a malformed Idempotency-Key.", ["bad_request"]),
    "404": notFound,
    "413": error("The body is larger than 64 KiB.", ["request_too_large"]),
    "422": error("A field is missing, unknown, of the wrong type or out of range (`error.field` names it), or the Idempotency-Key was used with another body.", ["invalid_request", "idempotency_key_reused"]),
  };
  const written = (description: string) => ({ description, headers: rateHeaders, content: json("WrittenReservation") });

  return {
    [PROPERTIES_PATH]: {
      get: { operationId: "listProperties", summary: "The token owner's properties, by name", parameters: page, responses: { "200": ok("A page of properties.", "PropertyPage"), "400": badQuery, ...guarded } },
    },
    [openApiPath(PROPERTY_PATH)]: {
      get: { operationId: "retrieveProperty", summary: "One property with its calendars", parameters: [id("property")], responses: { "200": ok("The property.", "Property"), "404": notFound, ...guarded } },
    },
    [openApiPath(PROPERTY_RESERVATIONS_PATH)]: {
      get: {
        operationId: "listReservations",
        summary: "A property's reservations by arrival, then id",
        parameters: [
          id("property"),
          query("from", "Keep reservations with a night on or after this date.", { type: "string", format: "date" }),
          query("to", "Keep reservations with a night before this date.", { type: "string", format: "date" }),
          query("status", "Which reservations.", { enum: ["active", "cancelled", "all"], default: "active" }),
          ...page,
        ],
        responses: { "200": ok("A page of reservations.", "ReservationPage"), "400": badQuery, "404": notFound, ...guarded },
      },
      post: {
        operationId: "createReservation",
        summary: "Put in a direct stay (a booking or a block)",
        description:
          "Unless `refresh: false`, the owner's channel calendars are synced first (joining a sync already going), so the check sees " +
          "what the channels say now; a calendar that could not be refreshed is checked as last stored and named in `warnings`. " +
          "Then, in one transaction, the stay is stored or refused: of two requests for overlapping nights exactly one succeeds.",
        parameters: [id("property"), idempotencyKey],
        requestBody: { required: true, content: json("DirectStayCreate") },
        responses: {
          "201": written("The stay as stored, with `warnings` when a calendar could not be refreshed."),
          "409": error("The nights are taken; `conflicts` lists the stays holding them.", ["nights_unavailable"]),
          ...writeErrors,
          ...guarded,
        },
      },
    },
    [openApiPath(AVAILABILITY_PATH)]: {
      get: {
        operationId: "propertyAvailability",
        summary: "Which nights of a property are free",
        parameters: [
          id("property"),
          query("from", "First night (default: today in the property's zone).", { type: "string", format: "date" }),
          query("to", "Exclusive end (default: from + 365 days); at most 732 nights.", { type: "string", format: "date" }),
        ],
        responses: { "200": ok("Every night in [from, to).", "Availability"), "400": badQuery, "404": notFound, ...guarded },
      },
    },
    [openApiPath(CHANNELS_PATH)]: {
      get: {
        operationId: "propertyChannels",
        summary: "What each channel has seen of the property's feed",
        description: "One entry per source of the property's channel calendars: its link (the outbound URL with `exclude=source`), its reads, its status, and the nights it may still sell (CONTRACT §17).",
        parameters: [id("property")],
        responses: { "200": ok("Every channel link of the property, by source.", "ChannelList"), "404": notFound, ...guarded },
      },
    },
    [openApiPath(RESERVATION_PATH)]: {
      patch: {
        operationId: "updateReservation",
        summary: "Change a direct stay's nights, summary or note",
        description: "New nights are checked as on create (a stay never conflicts with itself). A channel's reservation is read-only.",
        parameters: [id("reservation"), idempotencyKey],
        requestBody: { required: true, content: json("DirectStayUpdate") },
        responses: {
          "200": written("The stay as stored."),
          "409": error("The nights are taken (`conflicts`), or the reservation came from a channel.", ["nights_unavailable", "not_direct"]),
          ...writeErrors,
          ...guarded,
        },
      },
      delete: {
        operationId: "cancelReservation",
        summary: "Cancel a direct stay",
        parameters: [id("reservation"), idempotencyKey],
        responses: {
          "200": written("The stay, `status: \"cancelled\"`."),
          "409": error("The reservation came from a channel.", ["not_direct"]),
          "400": writeErrors["400"],
          "404": notFound,
          ...guarded,
        },
      },
    },
  };
}
