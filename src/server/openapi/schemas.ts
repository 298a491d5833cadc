// The JSON Schemas of API v1's bodies, written once: the OpenAPI document is built from them and
// test/openapi-types.test.ts checks at compile time that src/types.ts says exactly the same.
// Objects are closed (`additionalProperties: false`) so tests catch an undocumented field; v1 only
// ever adds optional fields, which clients should ignore when they do not know them.

/** `CalendarSource`. */
export const calendarSourceSchema = {
  type: "string",
  description: "Booking channel the calendar comes from: given when it was added, else detected from the feed's host.",
  enum: ["airbnb", "booking", "vrbo", "expedia", "google", "tripadvisor", "agoda", "other"],
} as const;

/** `ReservationSource`: a channel, or `direct` for stays entered in calsync (CONTRACT §14). */
export const reservationSourceSchema = {
  type: "string",
  description: "Booking channel the reservation's calendar comes from, or `direct` for a stay entered in calsync.",
  enum: [...calendarSourceSchema.enum, "direct"],
} as const;

/** `SyncStatus`. */
export const syncStatusSchema = { type: "string", enum: ["success", "failed"] } as const;

/** `SyncErrorCode`. */
export const syncErrorCodeSchema = {
  type: "string",
  description: "Why one calendar failed (CONTRACT §2).",
  enum: ["fetch_failed", "timeout", "http_error", "too_large", "not_icalendar", "parse_error", "suspicious_feed", "blocked_address", "throttled", "write_failed"],
} as const;

/** `SyncError`. */
export const syncErrorSchema = {
  type: "object",
  description: "Why a calendar failed; `message` never holds the feed URL's secret parts.",
  properties: {
    code: syncErrorCodeSchema,
    message: { type: "string" },
    httpStatus: { type: "integer", description: "Present for `http_error`: the status the feed answered." },
    retryAfter: {
      type: "integer",
      minimum: 0,
      maximum: 3600,
      description: "Seconds the feed's host asked to wait (`Retry-After` on a 429 or 503, at most 3600); on `throttled`, the seconds left.",
    },
  },
  required: ["code", "message"],
  additionalProperties: false,
} as const;

/** `SyncWarning`. */
export const syncWarningSchema = {
  type: "object",
  description: "Something a successful calendar could not read; `unreadable_event`: its stored reservation was kept, or a new one skipped.",
  properties: {
    code: { type: "string", enum: ["unreadable_event"] },
    uid: { type: "string", description: "The event's UID (empty when it has none)." },
    message: { type: "string" },
  },
  required: ["code", "uid", "message"],
  additionalProperties: false,
} as const;

const count = { type: "integer", minimum: 0 } as const;

/** `SyncResultDetails`. */
export const syncResultDetailsSchema = {
  type: "object",
  description: "Counts of one calendar; a failed calendar writes nothing and reports 0 for every count.",
  properties: {
    status: syncStatusSchema,
    reservationsFound: count,
    reservationsCreated: count,
    reservationsUpdated: count,
    reservationsCancelled: count,
    error: syncErrorSchema,
    warnings: { type: "array", items: syncWarningSchema, description: "Present only when not empty." },
  },
  required: ["status", "reservationsFound", "reservationsCreated", "reservationsUpdated", "reservationsCancelled"],
  additionalProperties: false,
} as const;

/** `SyncResultEntry`. */
export const syncResultEntrySchema = {
  type: "object",
  description: "One calendar's entry; `ok` is false exactly when `result.status` is `failed`.",
  properties: {
    propertyId: { type: "string" },
    propertyName: { type: "string" },
    source: calendarSourceSchema,
    ok: { type: "boolean" },
    result: syncResultDetailsSchema,
  },
  required: ["propertyId", "propertyName", "source", "ok", "result"],
  additionalProperties: false,
} as const;

/** `ConflictReservation`. */
export const conflictReservationSchema = {
  type: "object",
  properties: { id: { type: "string" }, source: reservationSourceSchema, summary: { type: "string" } },
  required: ["id", "source", "summary"],
  additionalProperties: false,
} as const;

/** `Conflict`. */
export const conflictSchema = {
  type: "object",
  description: "Overlapping active bookings on different calendars of one property (a double booking).",
  properties: {
    propertyId: { type: "string" },
    propertyName: { type: "string" },
    from: { type: "string", description: "First night in conflict (YYYY-MM-DD)." },
    to: { type: "string", description: "Exclusive end of the overlap (YYYY-MM-DD)." },
    reservations: { type: "array", items: conflictReservationSchema },
  },
  required: ["propertyId", "propertyName", "from", "to", "reservations"],
  additionalProperties: false,
} as const;

/** `SyncResponse`: the body of a 200 or 207. */
export const syncResponseSchema = {
  type: "object",
  description:
    "`syncedCalendars` = `results.length`; `failed` = entries with `ok: false`; `ok` = `failed === 0`; " +
    "`results` ordered by property name, then calendar creation.",
  properties: {
    ok: { type: "boolean" },
    syncedCalendars: count,
    propertiesChecked: count,
    failed: count,
    durationMs: count,
    results: { type: "array", items: syncResultEntrySchema },
    conflicts: { type: "array", items: conflictSchema, description: "Double bookings after the sync; absent when there are none." },
  },
  required: ["ok", "syncedCalendars", "propertiesChecked", "failed", "durationMs", "results"],
  additionalProperties: false,
} as const;

/** `ApiErrorCode`. */
export const apiErrorCodeSchema = {
  type: "string",
  description: "`error.code` of a non-2xx answer.",
  enum: [
    "missing_token",
    "invalid_token",
    "expired_token",
    "revoked_token",
    "not_found",
    "method_not_allowed",
    "internal_error",
    "bad_request",
    "request_too_large",
    "rate_limited",
    "unavailable",
    "insufficient_scope",
    "nights_unavailable",
    "not_direct",
    "invalid_request",
    "idempotency_key_reused",
  ],
} as const;

/** `ErrorBody`: the body of every non-2xx answer. */
export const errorBodySchema = {
  type: "object",
  properties: {
    ok: { const: false },
    error: {
      type: "object",
      properties: { code: apiErrorCodeSchema, message: { type: "string", description: "For people; never a stack trace, SQL or secret." } },
      required: ["code", "message"],
      additionalProperties: false,
    },
  },
  required: ["ok", "error"],
  additionalProperties: false,
} as const;

/** Every named schema, under the name it has in `components.schemas`. */
export const NAMED_SCHEMAS = {
  SyncResponse: syncResponseSchema,
  SyncResultEntry: syncResultEntrySchema,
  SyncResultDetails: syncResultDetailsSchema,
  SyncStatus: syncStatusSchema,
  SyncError: syncErrorSchema,
  SyncErrorCode: syncErrorCodeSchema,
  SyncWarning: syncWarningSchema,
  CalendarSource: calendarSourceSchema,
  Conflict: conflictSchema,
  ConflictReservation: conflictReservationSchema,
  ErrorBody: errorBodySchema,
  ApiErrorCode: apiErrorCodeSchema,
} as const;
