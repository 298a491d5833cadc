// The OpenAPI schemas and the TypeScript wire types are one truth: `npm run typecheck` compiles this
// file, and fails when a field, an optionality or an enum member differs between the two.
import type { FromSchema } from "json-schema-to-ts";
import { describe, expect, it } from "vitest";
import * as schemas from "../src/server/openapi/schemas.js";
import * as hooks from "../src/server/openapi/webhook-schemas.js";
import type {
  ApiErrorCode,
  CalendarSource,
  Conflict,
  ErrorBody,
  SyncError,
  SyncErrorCode,
  SyncResponse,
  SyncResultDetails,
  SyncResultEntry,
  SyncWarning,
  BookingConflictEvent,
  CalendarFailedEvent,
  CalendarRecoveredEvent,
  ReservationCancelledEvent,
  ReservationCreatedEvent,
  ReservationUpdatedEvent,
  SyncCompletedEvent,
  WebhookCalendar,
  WebhookEventType,
  WebhookReservation,
  WebhookStayDates,
} from "../src/types.js";

// True only when A and B are the same type (optional stays optional, a union keeps every member).
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Same<A, B> = Equals<A, B> extends true ? true : { schemaGives: A; typesSay: B };

const checks = {
  SyncResponse: true satisfies Same<FromSchema<typeof schemas.syncResponseSchema>, SyncResponse>,
  SyncResultEntry: true satisfies Same<FromSchema<typeof schemas.syncResultEntrySchema>, SyncResultEntry>,
  SyncResultDetails: true satisfies Same<FromSchema<typeof schemas.syncResultDetailsSchema>, SyncResultDetails>,
  SyncError: true satisfies Same<FromSchema<typeof schemas.syncErrorSchema>, SyncError>,
  SyncErrorCode: true satisfies Same<FromSchema<typeof schemas.syncErrorCodeSchema>, SyncErrorCode>,
  SyncWarning: true satisfies Same<FromSchema<typeof schemas.syncWarningSchema>, SyncWarning>,
  CalendarSource: true satisfies Same<FromSchema<typeof schemas.calendarSourceSchema>, CalendarSource>,
  Conflict: true satisfies Same<FromSchema<typeof schemas.conflictSchema>, Conflict>,
  ErrorBody: true satisfies Same<FromSchema<typeof schemas.errorBodySchema>, ErrorBody>,
  ApiErrorCode: true satisfies Same<FromSchema<typeof schemas.apiErrorCodeSchema>, ApiErrorCode>,
  // Webhook payloads (CONTRACT §11).
  WebhookEventType: true satisfies Same<FromSchema<typeof hooks.webhookEventTypeSchema>, WebhookEventType>,
  WebhookCalendar: true satisfies Same<FromSchema<typeof hooks.webhookCalendarSchema>, WebhookCalendar>,
  WebhookReservation: true satisfies Same<FromSchema<typeof hooks.webhookReservationSchema>, WebhookReservation>,
  WebhookStayDates: true satisfies Same<FromSchema<typeof hooks.webhookStayDatesSchema>, WebhookStayDates>,
  SyncCompletedEvent: true satisfies Same<FromSchema<typeof hooks.syncCompletedEventSchema>, SyncCompletedEvent>,
  CalendarFailedEvent: true satisfies Same<FromSchema<typeof hooks.calendarFailedEventSchema>, CalendarFailedEvent>,
  CalendarRecoveredEvent: true satisfies Same<FromSchema<typeof hooks.calendarRecoveredEventSchema>, CalendarRecoveredEvent>,
  ReservationCreatedEvent: true satisfies Same<FromSchema<typeof hooks.reservationCreatedEventSchema>, ReservationCreatedEvent>,
  ReservationUpdatedEvent: true satisfies Same<FromSchema<typeof hooks.reservationUpdatedEventSchema>, ReservationUpdatedEvent>,
  ReservationCancelledEvent: true satisfies Same<FromSchema<typeof hooks.reservationCancelledEventSchema>, ReservationCancelledEvent>,
  BookingConflictEvent: true satisfies Same<FromSchema<typeof hooks.bookingConflictEventSchema>, BookingConflictEvent>,
};

describe("OpenAPI schemas and wire types", () => {
  it("are checked against each other at compile time", () => {
    expect(Object.values(checks).every(Boolean)).toBe(true);
  });
});
