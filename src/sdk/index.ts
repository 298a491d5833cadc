// Root entry of the `calsync` package: the browser-safe SDK. It imports nothing from `node:`,
// no native module and no engine, store, server or CLI code (test/sdk-browser-safe.test.ts).
export { CalsyncClient, createClient, type CalendarsResource, type RequestOptions } from "./client.js";
export type { ClientOptions, FetchLike } from "./options.js";
export {
  APIError,
  AbortError,
  AuthenticationError,
  CalsyncError,
  ConnectionError,
  TimeoutError,
  type APIErrorCode,
  type AuthenticationErrorCode,
} from "./errors.js";
export { SDK_VERSION } from "./version.js";
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookHeaders } from "./webhooks.js";
export { CALENDAR_SOURCES, WEBHOOK_EVENT_TYPES } from "../types.js";
export type {
  ApiErrorCode,
  CalendarSource,
  Conflict,
  ConflictReservation,
  ErrorBody,
  SyncError,
  SyncErrorCode,
  SyncResponse,
  SyncResultDetails,
  SyncResultEntry,
  SyncStatus,
  SyncWarning,
  SyncWarningCode,
  BookingConflictEvent,
  CalendarFailedData,
  CalendarFailedEvent,
  CalendarRecoveredData,
  CalendarRecoveredEvent,
  ReservationCancelledEvent,
  ReservationCreatedEvent,
  ReservationEventData,
  ReservationUpdatedData,
  ReservationUpdatedEvent,
  SyncCompletedEvent,
  WebhookCalendar,
  WebhookEvent,
  WebhookEventType,
  WebhookReservation,
  WebhookStayDates,
} from "../types.js";
