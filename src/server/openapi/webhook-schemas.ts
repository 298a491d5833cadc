// The JSON Schemas of the webhook payloads (CONTRACT §11), written once like schemas.ts: the OpenAPI
// document's `webhooks` point at them, and test/openapi-types.test.ts checks them against the event types.
import { calendarSourceSchema, conflictSchema, reservationSourceSchema, syncErrorSchema, syncResponseSchema } from "./schemas.js";

const isoTime = { type: "string", description: "ISO-8601 UTC time." } as const;
const date = { type: "string", description: "`YYYY-MM-DD`." } as const;

/** `WebhookEventType`. */
export const webhookEventTypeSchema = {
  type: "string",
  enum: [
    "sync.completed", "calendar.failed", "calendar.recovered", "reservation.created", "reservation.updated", "reservation.cancelled", "booking.conflict",
    "channel.stale", "channel.recovered", "channel.exposed",
  ],
} as const;

/** `WebhookCalendar`. */
export const webhookCalendarSchema = {
  type: "object",
  description: "The calendar an event is about.",
  properties: { id: { type: "string" }, propertyId: { type: "string" }, propertyName: { type: "string" }, source: calendarSourceSchema },
  required: ["id", "propertyId", "propertyName", "source"],
  additionalProperties: false,
} as const;

/** `WebhookReservation`. */
export const webhookReservationSchema = {
  type: "object",
  description: "A reservation as `calsync reservations --json` lists it, with its property's name.",
  properties: {
    id: { type: "string" },
    propertyId: { type: "string" },
    propertyName: { type: "string" },
    calendarId: { type: "string" },
    source: reservationSourceSchema,
    uid: { type: "string" },
    kind: { type: "string", enum: ["booking", "block"] },
    status: { type: "string", enum: ["active", "cancelled"] },
    start: { type: "string", description: "As the feed wrote it: `YYYY-MM-DD` for all-day events, else ISO-8601 UTC." },
    end: { type: "string", description: "Exclusive; written like `start`." },
    arrival: { ...date, description: "First night (`YYYY-MM-DD`), at the property." },
    departure: { ...date, description: "The morning after the last night (`YYYY-MM-DD`, exclusive)." },
    summary: { type: "string" },
  },
  required: ["id", "propertyId", "propertyName", "calendarId", "source", "uid", "kind", "status", "start", "end", "arrival", "departure", "summary"],
  additionalProperties: false,
} as const;

/** `WebhookStayDates`. */
export const webhookStayDatesSchema = {
  type: "object",
  description: "A reservation's dates before an update.",
  properties: { start: { type: "string" }, end: { type: "string" }, arrival: date, departure: date },
  required: ["start", "end", "arrival", "departure"],
  additionalProperties: false,
} as const;

/** An event's envelope: `{type, timestamp, data}`. */
function event<T extends string, D extends object>(type: T, description: string, data: D) {
  return {
    type: "object",
    description,
    properties: {
      type: { type: "string", const: type },
      timestamp: { ...isoTime, description: "When the event happened; the attempt's time is the `webhook-timestamp` header." },
      data,
    },
    required: ["type", "timestamp", "data"],
    additionalProperties: false,
  } as const;
}

const reservationData = {
  type: "object",
  properties: { reservation: webhookReservationSchema },
  required: ["reservation"],
  additionalProperties: false,
} as const;

/** `SyncCompletedEvent`. */
export const syncCompletedEventSchema = event("sync.completed", "Every sync run of the owner, with its Sync response.", syncResponseSchema);

/** `CalendarFailedEvent`. */
export const calendarFailedEventSchema = event("calendar.failed", "A calendar failed its third sync in a row (once per streak).", {
  type: "object",
  properties: {
    calendar: webhookCalendarSchema,
    consecutiveFailures: { type: "integer", minimum: 1 },
    failingSince: { ...isoTime, description: "The first failure of the streak." },
    error: syncErrorSchema,
  },
  required: ["calendar", "consecutiveFailures", "failingSince", "error"],
  additionalProperties: false,
} as const);

/** `CalendarRecoveredEvent`. */
export const calendarRecoveredEventSchema = event("calendar.recovered", "The first success of a calendar after `calendar.failed`.", {
  type: "object",
  properties: {
    calendar: webhookCalendarSchema,
    consecutiveFailures: { type: "integer", minimum: 1, description: "Failed syncs in a row before this success." },
    failingSince: { type: ["string", "null"], description: "When the streak began (ISO-8601 UTC); null when unknown." },
  },
  required: ["calendar", "consecutiveFailures", "failingSince"],
  additionalProperties: false,
} as const);

/** `ReservationCreatedEvent`. */
export const reservationCreatedEventSchema = event("reservation.created", "A new reservation, or a cancelled one that is back.", reservationData);

/** `ReservationUpdatedEvent`. */
export const reservationUpdatedEventSchema = event("reservation.updated", "A reservation whose dates, summary, kind or details changed.", {
  type: "object",
  properties: { reservation: webhookReservationSchema, previous: webhookStayDatesSchema },
  required: ["reservation", "previous"],
  additionalProperties: false,
} as const);

/** `ReservationCancelledEvent`. */
export const reservationCancelledEventSchema = event("reservation.cancelled", "A reservation the feed cancelled or dropped before it ended.", reservationData);

/** `BookingConflictEvent`. */
export const bookingConflictEventSchema = event("booking.conflict", "A double booking, the first time a sync sees it.", conflictSchema);

/** `WebhookChannel`. */
export const webhookChannelSchema = {
  type: "object",
  description: "A channel link: the property's outbound URL with `exclude=source` (CONTRACT §17).",
  properties: { propertyId: { type: "string" }, propertyName: { type: "string" }, source: calendarSourceSchema },
  required: ["propertyId", "propertyName", "source"],
  additionalProperties: false,
} as const;

/** `ChannelStaleEvent`. */
export const channelStaleEventSchema = event("channel.stale", "A channel stopped reading its link (or never read it since its calendar was added); once per streak.", {
  type: "object",
  properties: { channel: webhookChannelSchema, status: { enum: ["never", "stale"] }, lastReadAt: { type: ["string", "null"], description: "ISO-8601 UTC; null when never read." } },
  required: ["channel", "status", "lastReadAt"],
  additionalProperties: false,
} as const);

/** `ChannelRecoveredEvent`. */
export const channelRecoveredEventSchema = event("channel.recovered", "The first read of a channel link after `channel.stale`.", {
  type: "object",
  properties: { channel: webhookChannelSchema, lastReadAt: isoTime },
  required: ["channel", "lastReadAt"],
  additionalProperties: false,
} as const);

/** `ChannelExposedEvent`. */
export const channelExposedEventSchema = event("channel.exposed", "Nights a channel may still sell, exposed longer than twice its usual interval (at least 6 h); once per night.", {
  type: "object",
  properties: {
    channel: webhookChannelSchema,
    lastReadAt: isoTime,
    usualIntervalSeconds: { type: ["integer", "null"] },
    nights: {
      type: "array",
      items: {
        type: "object",
        properties: { date, reservationId: { type: "string" }, source: reservationSourceSchema, since: isoTime },
        required: ["date", "reservationId", "source", "since"],
        additionalProperties: false,
      },
    },
  },
  required: ["channel", "lastReadAt", "usualIntervalSeconds", "nights"],
  additionalProperties: false,
} as const);

/** The schema of each event type's payload, by type. */
export const WEBHOOK_PAYLOADS = {
  "sync.completed": ["SyncCompletedEvent", syncCompletedEventSchema],
  "calendar.failed": ["CalendarFailedEvent", calendarFailedEventSchema],
  "calendar.recovered": ["CalendarRecoveredEvent", calendarRecoveredEventSchema],
  "reservation.created": ["ReservationCreatedEvent", reservationCreatedEventSchema],
  "reservation.updated": ["ReservationUpdatedEvent", reservationUpdatedEventSchema],
  "reservation.cancelled": ["ReservationCancelledEvent", reservationCancelledEventSchema],
  "booking.conflict": ["BookingConflictEvent", bookingConflictEventSchema],
  "channel.stale": ["ChannelStaleEvent", channelStaleEventSchema],
  "channel.recovered": ["ChannelRecoveredEvent", channelRecoveredEventSchema],
  "channel.exposed": ["ChannelExposedEvent", channelExposedEventSchema],
} as const;

/** Every named webhook schema, under its name in `components.schemas`. */
export const WEBHOOK_SCHEMAS = {
  WebhookEventType: webhookEventTypeSchema,
  WebhookCalendar: webhookCalendarSchema,
  WebhookReservation: webhookReservationSchema,
  WebhookStayDates: webhookStayDatesSchema,
  WebhookChannel: webhookChannelSchema,
  ...Object.fromEntries(Object.values(WEBHOOK_PAYLOADS)),
} as Readonly<Record<string, object>>;
