// The paths of API v1's resources (CONTRACT §14) in the OpenAPI document, with every status each can answer,
// examples a real server accepts and links from each answer to the operations its ids feed.
import { AVAILABILITY_PATH, CHANNELS_PATH, openApiPath, PROPERTIES_PATH, PROPERTY_PATH, PROPERTY_RESERVATIONS_PATH, RESERVATION_PATH } from "../routes.js";
import { PROPERTY_TURNOVERS_PATH, TURNOVERS_PATH } from "../routes.js";
import { IDEMPOTENCY_KEY_PATTERN, MAX_IDEMPOTENCY_KEY } from "../api/body.js";
import { headersOf, RATE_HEADERS, ref, resourceErrors } from "./answers.js";
import { exampleProperty, exampleQuery, exampleReservation, exampleStayCreate, exampleStayUpdate } from "./examples.js";

/** The longest `Idempotency-Key` and its characters (visible ASCII), from the check the routes make. */
const IDEMPOTENCY_KEY_SCHEMA = { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY, pattern: IDEMPOTENCY_KEY_PATTERN } as const;

const json = (schema: string, example?: unknown) => ({
  "application/json": { schema: ref("schemas", schema), ...(example === undefined ? {} : { example }) },
});
const ok = (description: string, schema: string, links?: Record<string, object>) => ({
  description,
  headers: headersOf(RATE_HEADERS),
  content: json(schema),
  ...(links ? { links } : {}),
});
// A link hands an id from an answer to the next operation (`$response.body#/…`: a JSON pointer into it).
const link = (operationId: string, id: string, description: string) => ({ operationId, parameters: { id }, description });
const stayLinks = (id: string) => ({
  UpdateReservation: link("updateReservation", id, "Change this stay."),
  CancelReservation: link("cancelReservation", id, "Cancel this stay."),
});
const propertyLinks = (id: string) => ({
  RetrieveProperty: link("retrieveProperty", id, "This property with its calendars."),
  ListReservations: link("listReservations", id, "This property's reservations."),
  PropertyAvailability: link("propertyAvailability", id, "Which of this property's nights are free."),
  CreateReservation: link("createReservation", id, "Put in a direct stay at this property."),
});

const id = (what: string, example: string) => ({ name: "id", in: "path", required: true, schema: { type: "string" }, description: `The ${what}'s id.`, example });
const query = (name: string, description: string, schema: object, example?: unknown) => ({
  name,
  in: "query",
  required: false,
  schema,
  description,
  ...(example === undefined ? {} : { example }),
});
const page = [
  query("limit", "Rows per page, 1–500.", { type: "integer", minimum: 1, maximum: 500, default: 100 }, exampleQuery.limit),
  query("cursor", "`nextCursor` of the previous page (any other value is 400).", { type: "string" }),
];
const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  schema: IDEMPOTENCY_KEY_SCHEMA,
  description:
    "1–255 visible ASCII characters (a UUID will do). The same key with the same body within 24 h answers the first answer again " +
    "and changes nothing; with another body, 422 `idempotency_key_reused`. Only 2xx answers and 409 `nights_unavailable` are kept.",
  example: "4f7c1b2e-6b1d-4c39-9a52-0d8e7c1f5a10",
};

const notFound = (what: string) => ({ description: `No such ${what} among the token owner's (another owner's id included).`, codes: ["not_found" as const] });
const badQuery = (names: string) => ({ description: `A malformed ${names}; \`error.field\` names it.`, codes: ["bad_request" as const] });
const writeErrors = {
  "400": { description: "The body is not JSON, or a malformed Idempotency-Key.", codes: ["bad_request" as const] },
  "413": { description: "The body is larger than 64 KiB.", codes: ["request_too_large" as const] },
  "422": {
    description:
      "A field is missing, unknown, of the wrong type or out of range, the dates are not real, not in order, over or longer than 366 nights " +
      "(`error.field` names it; the message quotes the value sent), or the Idempotency-Key was used with another body.",
    codes: ["invalid_request" as const, "idempotency_key_reused" as const],
  },
};
const written = (description: string, links?: Record<string, object>) => ok(description, "WrittenReservation", links);

const turnoverQuery = [
  query("from", "First date (default: today in each property's zone).", { type: "string", format: "date" }, exampleQuery.from),
  query("to", "Exclusive end (default: from + 30 days); at most 366 days after `from`.", { type: "string", format: "date" }, exampleQuery.to),
  ...page,
];

/** The resource paths of the document. */
export function resourcePaths() {
  return {
    [PROPERTIES_PATH]: {
      get: {
        operationId: "listProperties",
        summary: "The token owner's properties, by name",
        parameters: page,
        responses: {
          "200": ok("A page of properties.", "PropertyPage", propertyLinks("$response.body#/data/0/id")),
          ...resourceErrors({ "400": badQuery("`limit` or `cursor`") }),
        },
      },
    },
    [openApiPath(PROPERTY_PATH)]: {
      get: {
        operationId: "retrieveProperty",
        summary: "One property with its calendars",
        parameters: [id("property", exampleProperty.id)],
        responses: {
          "200": ok("The property.", "Property", propertyLinks("$response.body#/id")),
          ...resourceErrors({ "404": notFound("property") }),
        },
      },
      patch: {
        operationId: "updateProperty",
        summary: "Change a property's name, time zone or turnover settings (check-in, check-out, buffer nights, cleaners)",
        description: "Any of the fields, at least one. Bad input changes nothing: 422 `invalid_request` with `error.field` naming the field.",
        parameters: [id("property", exampleProperty.id)],
        requestBody: { required: true, content: json("PropertyUpdate", { checkInTime: "16:00", checkOutTime: "10:00", bufferNights: 1 }) },
        responses: {
          "200": ok("The property as changed.", "Property"),
          ...resourceErrors({
            "400": { description: "The body is not JSON.", codes: ["bad_request"] },
            "404": notFound("property"),
            "413": writeErrors["413"],
            "422": { description: "A field is unknown, of the wrong type or out of range; `error.field` names it.", codes: ["invalid_request"] },
          }),
        },
      },
    },
    [openApiPath(PROPERTY_TURNOVERS_PATH)]: {
      get: {
        operationId: "listPropertyTurnovers",
        summary: "A property's turnovers: departures with the next arrival, same-day and tight ones marked",
        parameters: [id("property", exampleProperty.id), ...turnoverQuery],
        responses: {
          "200": ok("A page of turnovers by date, then departing reservation id.", "TurnoverPage"),
          ...resourceErrors({ "400": badQuery("`from`, `to`, `limit` or `cursor`, `to` not after `from`, or more than 366 days"), "404": notFound("property") }),
        },
      },
    },
    [TURNOVERS_PATH]: {
      get: {
        operationId: "listTurnovers",
        summary: "The turnovers of every property of the token's owner",
        parameters: turnoverQuery,
        responses: {
          "200": ok("A page of turnovers by date, then departing reservation id.", "TurnoverPage"),
          ...resourceErrors({ "400": badQuery("`from`, `to`, `limit` or `cursor`, `to` not after `from`, or more than 366 days") }),
        },
      },
    },
    [openApiPath(PROPERTY_RESERVATIONS_PATH)]: {
      get: {
        operationId: "listReservations",
        summary: "A property's reservations by arrival, then id",
        parameters: [
          id("property", exampleProperty.id),
          query("from", "Keep reservations with a night on or after this date.", { type: "string", format: "date" }, exampleQuery.from),
          query("to", "Keep reservations with a night before this date (after `from`).", { type: "string", format: "date" }, exampleQuery.to),
          query("status", "Which reservations.", { enum: ["active", "cancelled", "all"], default: "active" }, exampleQuery.status),
          ...page,
        ],
        responses: {
          "200": ok("A page of reservations.", "ReservationPage", stayLinks("$response.body#/data/0/id")),
          ...resourceErrors({ "400": badQuery("`from`, `to`, `status`, `limit` or `cursor`, or `to` not after `from`"), "404": notFound("property") }),
        },
      },
      post: {
        operationId: "createReservation",
        summary: "Put in a direct stay (a booking or a block)",
        description:
          "Unless `refresh: false`, this property's channel calendars are synced first (joining a sync already going; one fetched less " +
          "than 60 s ago is not fetched again), so the check sees what the channels say now. The check waits at most 8 s for them " +
          "(the server's `--refresh-timeout`); a calendar that could not be refreshed is checked as last stored and named in `warnings`. " +
          "Then, in one transaction, the stay is stored or refused: of two requests for overlapping nights exactly one succeeds.",
        parameters: [id("property", exampleProperty.id), idempotencyKey],
        requestBody: { required: true, content: json("DirectStayCreate", exampleStayCreate) },
        responses: {
          "201": written("The stay as stored, with `warnings` when a calendar could not be refreshed.", stayLinks("$response.body#/id")),
          ...resourceErrors({
            ...writeErrors,
            "404": notFound("property"),
            "409": { description: "The nights are taken; `conflicts` lists the stays holding them.", codes: ["nights_unavailable"] },
          }),
        },
      },
    },
    [openApiPath(AVAILABILITY_PATH)]: {
      get: {
        operationId: "propertyAvailability",
        summary: "Which nights of a property are free",
        parameters: [
          id("property", exampleProperty.id),
          query("from", "First night (default: today in the property's zone).", { type: "string", format: "date" }, exampleQuery.from),
          query("to", "Exclusive end (default: from + 365 days); at most 732 nights.", { type: "string", format: "date" }, exampleQuery.to),
        ],
        responses: {
          "200": ok("Every night in [from, to).", "Availability"),
          ...resourceErrors({ "400": badQuery("`from` or `to`, `to` not after `from`, or more than 732 nights"), "404": notFound("property") }),
        },
      },
    },
    [openApiPath(CHANNELS_PATH)]: {
      get: {
        operationId: "propertyChannels",
        summary: "What each channel has seen of the property's feed",
        description:
          "One entry per source of the property's channel calendars: its link (the outbound URL with `exclude=source`), its reads, its status, and the nights it may still sell (CONTRACT §17).",
        parameters: [id("property", exampleProperty.id)],
        responses: {
          "200": ok("Every channel link of the property, by source.", "ChannelList"),
          ...resourceErrors({ "404": notFound("property") }),
        },
      },
    },
    [openApiPath(RESERVATION_PATH)]: {
      patch: {
        operationId: "updateReservation",
        summary: "Change a direct stay's nights, summary or note",
        description: "New nights are checked as on create (a stay never conflicts with itself). A channel's reservation is read-only.",
        parameters: [id("reservation", exampleReservation.id), idempotencyKey],
        requestBody: { required: true, content: json("DirectStayUpdate", exampleStayUpdate) },
        responses: {
          "200": written("The stay as stored.", { CancelReservation: stayLinks("$response.body#/id").CancelReservation }),
          ...resourceErrors({
            ...writeErrors,
            "404": notFound("reservation"),
            "409": { description: "The nights are taken (`conflicts`), or the reservation came from a channel.", codes: ["nights_unavailable", "not_direct"] },
          }),
        },
      },
      delete: {
        operationId: "cancelReservation",
        summary: "Cancel a direct stay",
        description: "Takes no body (any is ignored).",
        parameters: [id("reservation", exampleReservation.id), idempotencyKey],
        responses: {
          "200": written("The stay, `status: \"cancelled\"`."),
          ...resourceErrors({
            "400": { description: "A malformed Idempotency-Key.", codes: ["bad_request"] },
            "404": notFound("reservation"),
            "409": { description: "The reservation came from a channel.", codes: ["not_direct"] },
          }),
        },
      },
    },
  };
}
