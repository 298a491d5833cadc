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
  exampleTurnover,
} from "./examples.js";
import { apiErrorCodeSchema, reservationSourceSchema } from "./schemas.js";

const date = { type: "string", format: "date", pattern: "^\\d{4}-\\d{2}-\\d{2}$" } as const;
const time = { type: "string", format: "date-time" } as const;
const clock = { type: "string", pattern: "^([01]\\d|2[0-3]):[0-5]\\d$", description: "HH:MM, 24 h." } as const;
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
    checkInTime: { ...clock, description: "Check-in time in the property's zone (default 15:00)." },
    checkOutTime: { ...clock, description: "Check-out time in the property's zone (default 11:00)." },
    bufferNights: { type: "integer", minimum: 0, maximum: 7, description: "Nights kept free before every booking's arrival and after its departure." },
    cleanerEmails: { type: "array", items: { type: "string", format: "email" }, maxItems: 5, description: "Mailed when a turnover in the next 14 days appears, moves or disappears." },
    cleaningUrl: { type: ["string", "null"], description: "The cleaning feed's URL (a capability); null until made (`calsync property cleaning ID`): reading never makes one." },
  },
  required: ["id", "name", "timeZone", "feedUrl", "calendars", "checkInTime", "checkOutTime", "bufferNights", "cleanerEmails", "cleaningUrl"],
  additionalProperties: false,
  examples: [exampleProperty],
} as const;

/** A PATCH body of a property (CONTRACT §18): any of these, at least one. */
export const propertyUpdateSchema = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, maxLength: 200 },
    timeZone: { type: ["string", "null"], description: "An IANA zone, or null to unset; every reservation's nights are recomputed." },
    checkInTime: clock,
    checkOutTime: clock,
    bufferNights: { type: "integer", minimum: 0, maximum: 7 },
    cleanerEmails: { type: "array", items: { type: "string", format: "email" }, maxItems: 5, description: "Bare addresses; replaces the list." },
  },
  minProperties: 1,
  additionalProperties: false,
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

export const turnoverSchema = {
  type: "object",
  description: "The departure date of an active booking and the next arrival (CONTRACT §18).",
  properties: {
    date: { ...date, description: "The departure date, in the property's zone." },
    propertyId: { type: "string" },
    departingReservationId: { type: "string" },
    checkOutTime: clock,
    nextArrival: {
      oneOf: [
        {
          type: "object",
          properties: { date, reservationId: { type: "string" }, checkInTime: clock },
          required: ["date", "reservationId", "checkInTime"],
          additionalProperties: false,
        },
        { type: "null" },
      ],
      description: "The next active booking arriving on or after `date`; null when none is booked.",
    },
    sameDay: { type: "boolean", description: "The next guests arrive on `date`." },
    tight: { type: "boolean", description: "The next arrival falls within the departing booking's buffer nights." },
  },
  required: ["date", "propertyId", "departingReservationId", "checkOutTime", "nextArrival", "sameDay", "tight"],
  additionalProperties: false,
  examples: [exampleTurnover],
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
export const turnoverPageSchema = pageOf(turnoverSchema, "A page of turnovers by date, then departing reservation id.", exampleTurnover);

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
  PropertyUpdate: propertyUpdateSchema,
  Turnover: turnoverSchema,
  TurnoverPage: turnoverPageSchema,
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
