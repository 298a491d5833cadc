// Root entry of the `calsync` package: the browser-safe SDK. It imports nothing from `node:`,
// no native module and no engine, store, server or CLI code (test/sdk-browser-safe.test.ts).
export { CalsyncClient, createClient, type CalendarsResource, type RequestOptions } from "./client.js";
export type { WriteOptions } from "./call-options.js";
export { CursorPage, PagePromise } from "./pagination.js";
export { Properties, type AvailabilityParams, type PropertyListParams } from "./resources/properties.js";
export { Reservations, type ReservationListParams } from "./resources/reservations.js";
export { Turnovers, type TurnoverListParams } from "./resources/turnovers.js";
export type { ClientOptions, FetchLike } from "./options.js";
export {
  APIError,
  AbortError,
  AuthenticationError,
  CalsyncError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PermissionDeniedError,
  TimeoutError,
  UnprocessableEntityError,
  type APIErrorCode,
  type AuthenticationErrorCode,
} from "./errors.js";
export { SDK_VERSION } from "./version.js";
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookHeaders } from "./webhooks.js";
export { CALENDAR_SOURCES, WEBHOOK_EVENT_TYPES } from "../types.js";
export type { Channel, ChannelList, ChannelStatus, ExposedNight } from "../channel-types.js";
export type {
  Availability,
  AvailabilityNight,
  DirectStayCreate,
  DirectStayResult,
  DirectStayUpdate,
  NightsConflict,
  Page,
  Property,
  PropertyCalendar,
  PropertyUpdate,
  RefreshWarning,
  Turnover,
  Reservation,
  ReservationSource,
  TokenScope,
} from "../resource-types.js";
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
