// JSON Schemas of API v1's resources (CONTRACT §14), mirroring src/resource-types.ts; the document names them.
import {
  exampleAvailability,
  exampleBlock,
  exampleConflict,
  exampleProperty,
  exampleRefreshWarning,
  exampleReservation,
  exampleStayCreate,
  exampleStayUpdate,
} from "./examples.js";
import { apiErrorCodeSchema, reservationSourceSchema } from "./schemas.js";

const date = { type: "string", format: "date", pattern: "^\\d{4}-\\d{2}-\\d{2}$" } as const;
const time = { type: "string", format: "date-time" } as const;
const nullable = <const T extends object>(schema: T) => ({ oneOf: [schema, { type: "null" }] }) as const;

export const propertyCalendarSchema = {
  type: "object",
  properties: {
    id: { type: "string" },
    source: reservationSourceSchema,
    url: { type: "string", description: "The feed URL with its secret parts masked; empty for the `direct` calendar." },
    status: { enum: ["success", "failed", null], description: "The last sync's outcome; null before the first (and always for `direct`)." },
    lastSyncedAt: nullable(time),
    consecutiveFailures: { type: "integer", minimum: 0 },
    failingSince: nullable(time),
  },
  required: ["id", "source", "url", "status", "lastSyncedAt", "consecutiveFailures", "failingSince"],
  additionalProperties: false,
  examples: exampleProperty.calendars,
} as const;

export const propertySchema = {
  type: "object",
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    timeZone: { type: ["string", "null"], description: "IANA zone the nights are read in; null when unset." },
    feedUrl: {
      type: ["string", "null"],
      description: "The outbound feed's URL (its token is a capability: keep it secret); null until the owner asks for one, and after the feed is switched off. Reading a property never makes one.",
    },
    calendars: { type: "array", items: propertyCalendarSchema },
  },
  required: ["id", "name", "timeZone", "feedUrl", "calendars"],
  additionalProperties: false,
  examples: [exampleProperty],
} as const;

export const reservationSchema = {
  type: "object",
  properties: {
    id: { type: "string" },
    propertyId: { type: "string" },
    calendarId: { type: "string" },
    source: reservationSourceSchema,
    kind: { enum: ["booking", "block"] },
    status: { enum: ["active", "cancelled"] },
    arrival: { ...date, description: "First night." },
    departure: { ...date, description: "The morning after the last night (exclusive)." },
    summary: { type: "string" },
    note: { type: ["string", "null"], description: "The owner's note on a direct stay." },
    echoOf: { type: ["string", "null"], description: "The reservation this one is a channel's echo of." },
    createdAt: time,
    updatedAt: time,
  },
  required: ["id", "propertyId", "calendarId", "source", "kind", "status", "arrival", "departure", "summary", "note", "echoOf", "createdAt", "updatedAt"],
  additionalProperties: false,
  examples: [exampleReservation],
} as const;

export const refreshWarningSchema = {
  type: "object",
  description: "A channel calendar that could not be refreshed before the check; it was checked as last stored.",
  properties: { code: { const: "calendar_not_refreshed" }, calendarId: { type: "string" }, message: { type: "string" } },
  required: ["code", "calendarId", "message"],
  additionalProperties: false,
  examples: [exampleRefreshWarning],
} as const;

/** A written direct stay: the Reservation, plus `warnings` when not empty. */
export const writtenReservationSchema = {
  type: "object",
  properties: { ...reservationSchema.properties, warnings: { type: "array", items: refreshWarningSchema, minItems: 1 } },
  required: reservationSchema.required,
  additionalProperties: false,
  examples: [exampleReservation, { ...exampleReservation, warnings: [exampleRefreshWarning] }],
} as const;

export const nightsConflictSchema = {
  type: "object",
  properties: { reservationId: { type: "string" }, source: reservationSourceSchema, arrival: date, departure: date },
  required: ["reservationId", "source", "arrival", "departure"],
  additionalProperties: false,
  examples: [exampleConflict],
} as const;

export const availabilitySchema = {
  type: "object",
  properties: {
    propertyId: { type: "string" },
    timeZone: { type: ["string", "null"] },
    from: date,
    to: { ...date, description: "Exclusive." },
    nights: {
      type: "array",
      items: {
        type: "object",
        properties: { date, available: { type: "boolean" }, reservationIds: { type: "array", items: { type: "string" } } },
        required: ["date", "available", "reservationIds"],
        additionalProperties: false,
      },
    },
  },
  required: ["propertyId", "timeZone", "from", "to", "nights"],
  additionalProperties: false,
  examples: [exampleAvailability],
} as const;

const pageOf = (items: object, description: string, example: object) => ({
  type: "object",
  description,
  properties: { data: { type: "array", items }, nextCursor: { type: ["string", "null"], description: "Opaque; null on the last page." } },
  required: ["data", "nextCursor"],
  additionalProperties: false,
  examples: [{ data: [example], nextCursor: null }],
});
export const propertyPageSchema = pageOf(propertySchema, "A page of properties by name.", exampleProperty);
export const reservationPageSchema = pageOf(reservationSchema, "A page of reservations by arrival, then id.", exampleReservation);

export const directStayCreateSchema = {
  type: "object",
  properties: {
    kind: { enum: ["booking", "block"] },
    arrival: date,
    departure: { ...date, description: "After arrival and after today in the property's zone; at most 366 nights." },
    summary: { type: "string", maxLength: 200 },
    note: { type: ["string", "null"], maxLength: 2000 },
    // The default is in words, not `default: true`: openapi-typescript types a defaulted property as required.
    refresh: { type: "boolean", description: "Sync this property's channel calendars before checking; leave out (or true) to sync, false to check as last stored." },
  },
  required: ["kind", "arrival", "departure"],
  additionalProperties: false,
  examples: [exampleStayCreate, exampleBlock],
} as const;

export const directStayUpdateSchema = {
  type: "object",
  properties: {
    arrival: date,
    departure: date,
    summary: { type: "string", maxLength: 200 },
    note: { type: ["string", "null"], maxLength: 2000 },
    refresh: { type: "boolean", description: "When the nights change, sync the channel calendars before checking; leave out (or true) to sync, false not to." },
  },
  additionalProperties: false,
  examples: [exampleStayUpdate],
} as const;

/** The error body of the resource routes: §2's, with the field at fault, the taken stays and refresh warnings. */
export const resourceErrorBodySchema = {
  type: "object",
  properties: {
    ok: { const: false },
    error: {
      type: "object",
      properties: {
        code: apiErrorCodeSchema,
        message: { type: "string" },
        field: { type: "string", description: "The query parameter (400) or body field (422) at fault." },
      },
      required: ["code", "message"],
      additionalProperties: false,
    },
    conflicts: { type: "array", items: nightsConflictSchema, description: "`nights_unavailable`: the stays holding the nights." },
    warnings: { type: "array", items: refreshWarningSchema },
  },
  required: ["ok", "error"],
  additionalProperties: false,
  examples: [
    {
      ok: false,
      error: { code: "nights_unavailable", message: `the nights are taken: airbnb ${exampleConflict.arrival}–${exampleConflict.departure}` },
      conflicts: [exampleConflict],
    },
  ],
} as const;

/** The resource schemas under their `components.schemas` names. */
export const RESOURCE_SCHEMAS = {
  Property: propertySchema,
  PropertyCalendar: propertyCalendarSchema,
  PropertyPage: propertyPageSchema,
  Reservation: reservationSchema,
  WrittenReservation: writtenReservationSchema,
  ReservationPage: reservationPageSchema,
  Availability: availabilitySchema,
  DirectStayCreate: directStayCreateSchema,
  DirectStayUpdate: directStayUpdateSchema,
  NightsConflict: nightsConflictSchema,
  RefreshWarning: refreshWarningSchema,
  ResourceErrorBody: resourceErrorBodySchema,
  ReservationSource: reservationSourceSchema,
} as const;
