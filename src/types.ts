// The wire types of API v1 (CONTRACT §2). Server, SDK, engine and CLI all use these, so they cannot drift.

/** Booking channel a calendar comes from. */
export type CalendarSource =
  | "airbnb"
  | "booking"
  | "vrbo"
  | "expedia"
  | "google"
  | "tripadvisor"
  | "agoda"
  | "other";

/** Every valid `CalendarSource`, in documentation order. */
export const CALENDAR_SOURCES: readonly CalendarSource[] = [
  "airbnb",
  "booking",
  "vrbo",
  "expedia",
  "google",
  "tripadvisor",
  "agoda",
  "other",
];

/** A calendar's source, or `direct` for the stays entered in calsync itself (never fetched). */
export type ReservationSource = CalendarSource | "direct";

/** Outcome of one calendar's synchronisation. */
export type SyncStatus = "success" | "failed";

/** Why one calendar failed. */
export type SyncErrorCode =
  | "fetch_failed"
  | "timeout"
  | "http_error"
  | "too_large"
  | "not_icalendar"
  | "parse_error"
  | "suspicious_feed"
  | "blocked_address"
  | "throttled"
  | "write_failed";

/** Error detail of a failed calendar; `message` never holds a feed URL's secret parts. */
export interface SyncError {
  code: SyncErrorCode;
  message: string;
  /** Present for `http_error`: the status the feed answered. */
  httpStatus?: number;
  /**
   * Seconds the feed's host asked calsync to wait (`Retry-After` on a 429 or 503, at most 3600), on that
   * `http_error`; on `throttled`, the seconds left of that wait. Additive to v1.
   */
  retryAfter?: number;
}

/** Why a calendar that synchronised still wants the owner's attention. */
export type SyncWarningCode = "unreadable_event";

/**
 * Something a successful calendar could not read (additive to v1). `unreadable_event`: an event whose
 * dates cannot be read; its stored reservation was kept as it was, or, if new, it was skipped.
 */
export interface SyncWarning {
  code: SyncWarningCode;
  /** The event's UID ("" when it has none). */
  uid: string;
  message: string;
}

/** Counts (and error) of one calendar. A failed calendar reports 0 for every count. */
export interface SyncResultDetails {
  status: SyncStatus;
  reservationsFound: number;
  reservationsCreated: number;
  reservationsUpdated: number;
  reservationsCancelled: number;
  error?: SyncError;
  /** Present only when not empty. */
  warnings?: SyncWarning[];
}

/** One calendar's entry in `SyncResponse.results`. */
export interface SyncResultEntry {
  propertyId: string;
  propertyName: string;
  source: CalendarSource;
  ok: boolean;
  result: SyncResultDetails;
}

/** A reservation taking part in a double booking. */
export interface ConflictReservation {
  id: string;
  /** `direct` for a stay entered in calsync (CONTRACT §14). */
  source: ReservationSource;
  summary: string;
}

/** Overlapping active bookings on different calendars of one property (additive to v1). */
export interface Conflict {
  propertyId: string;
  propertyName: string;
  /** First night in conflict (`YYYY-MM-DD`). */
  from: string;
  /** Exclusive end of the overlap. */
  to: string;
  reservations: ConflictReservation[];
}

/** Body of a 200 or 207 answer to `POST /api/v1/calendars/sync`. */
export interface SyncResponse {
  ok: boolean;
  syncedCalendars: number;
  propertiesChecked: number;
  failed: number;
  durationMs: number;
  results: SyncResultEntry[];
  /** Double bookings found after the sync; absent when there are none. */
  conflicts?: Conflict[];
}

/** `error.code` of a non-2xx answer. */
export type ApiErrorCode =
  | "missing_token"
  | "invalid_token"
  | "expired_token"
  | "revoked_token"
  | "not_found"
  | "method_not_allowed"
  | "internal_error"
  | "bad_request"
  | "request_too_large"
  | "rate_limited"
  | "unavailable"
  // API v1 resources (CONTRACT §14).
  | "insufficient_scope"
  | "nights_unavailable"
  | "not_direct"
  | "invalid_request"
  | "idempotency_key_reused";

/** Body of every non-2xx answer. */
export interface ErrorBody {
  ok: false;
  error: { code: ApiErrorCode; message: string };
}

// Webhooks (CONTRACT §11): what calsync POSTs to an owner's endpoints, signed per Standard Webhooks.

/** The kinds of event a webhook endpoint can subscribe to. */
export type WebhookEventType =
  | "sync.completed"
  | "calendar.failed"
  | "calendar.recovered"
  | "reservation.created"
  | "reservation.updated"
  | "reservation.cancelled"
  | "booking.conflict"
  | "channel.stale"
  | "channel.recovered"
  | "channel.exposed";

/** Every `WebhookEventType`, in documentation order. */
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  "sync.completed",
  "calendar.failed",
  "calendar.recovered",
  "reservation.created",
  "reservation.updated",
  "reservation.cancelled",
  "booking.conflict",
  "channel.stale",
  "channel.recovered",
  "channel.exposed",
];

/** The calendar an event is about. */
export interface WebhookCalendar {
  id: string;
  propertyId: string;
  propertyName: string;
  source: CalendarSource;
}

/** `calendar.failed`: the calendar's third failed sync in a row (once per streak). */
export interface CalendarFailedData {
  calendar: WebhookCalendar;
  /** Failed syncs in a row, this one included. */
  consecutiveFailures: number;
  /** ISO time of the first failure of the streak. */
  failingSince: string;
  /** Why this sync failed. */
  error: SyncError;
}

/** `calendar.recovered`: the first success after a `calendar.failed`; the streak fields are those of the streak it ended. */
export interface CalendarRecoveredData {
  calendar: WebhookCalendar;
  /** Failed syncs in a row before this success. */
  consecutiveFailures: number;
  /** ISO time the streak began; null when unknown. */
  failingSince: string | null;
}

/** A reservation as webhooks carry it: the `calsync reservations --json` entry with its property's name. */
export interface WebhookReservation {
  id: string;
  propertyId: string;
  propertyName: string;
  calendarId: string;
  /** `direct` for a stay entered in calsync (CONTRACT §14). */
  source: ReservationSource;
  uid: string;
  kind: "booking" | "block";
  status: "active" | "cancelled";
  /** As the feed wrote it: `YYYY-MM-DD` for all-day events, else ISO-8601 UTC. */
  start: string;
  end: string;
  /** First night, `YYYY-MM-DD` (CONTRACT §8). */
  arrival: string;
  /** The morning after the last night, `YYYY-MM-DD` (exclusive). */
  departure: string;
  summary: string;
}

/** A reservation's dates before an update. */
export interface WebhookStayDates {
  start: string;
  end: string;
  arrival: string;
  departure: string;
}

/** `reservation.created` and `reservation.cancelled`. */
export interface ReservationEventData {
  reservation: WebhookReservation;
}

/** `reservation.updated`: the reservation as it is now, and its dates before. */
export interface ReservationUpdatedData {
  reservation: WebhookReservation;
  previous: WebhookStayDates;
}

/** `sync.completed`: every run, its Sync response. */
export interface SyncCompletedEvent {
  type: "sync.completed";
  /** When the event happened (ISO-8601 UTC); the delivery attempt's time is the `webhook-timestamp` header. */
  timestamp: string;
  data: SyncResponse;
}

/** `calendar.failed`. */
export interface CalendarFailedEvent {
  type: "calendar.failed";
  timestamp: string;
  data: CalendarFailedData;
}

/** `calendar.recovered`. */
export interface CalendarRecoveredEvent {
  type: "calendar.recovered";
  timestamp: string;
  data: CalendarRecoveredData;
}

/** `reservation.created`: a new reservation, or a cancelled one that is back. */
export interface ReservationCreatedEvent {
  type: "reservation.created";
  timestamp: string;
  data: ReservationEventData;
}

/** `reservation.updated`: dates, summary, kind or details changed. */
export interface ReservationUpdatedEvent {
  type: "reservation.updated";
  timestamp: string;
  data: ReservationUpdatedData;
}

/** `reservation.cancelled`. */
export interface ReservationCancelledEvent {
  type: "reservation.cancelled";
  timestamp: string;
  data: ReservationEventData;
}

/** `booking.conflict`: a double booking seen for the first time. */
export interface BookingConflictEvent {
  type: "booking.conflict";
  timestamp: string;
  data: Conflict;
}

/** Any webhook payload; narrow it with `switch (event.type)`. */
export type WebhookEvent =
  | SyncCompletedEvent
  | CalendarFailedEvent
  | CalendarRecoveredEvent
  | ReservationCreatedEvent
  | ReservationUpdatedEvent
  | ReservationCancelledEvent
  | BookingConflictEvent
  | ChannelStaleEvent
  | ChannelRecoveredEvent
  | ChannelExposedEvent;

/** The channel link an event is about (CONTRACT §17): a property's outbound URL with `exclude=source`. */
export interface WebhookChannel {
  propertyId: string;
  propertyName: string;
  source: CalendarSource;
}

/** `channel.stale`: a link not read for longer than `--channel-stale-after`, or never read that long after its calendar was added. */
export interface ChannelStaleEvent {
  type: "channel.stale";
  timestamp: string;
  data: {
    channel: WebhookChannel;
    /** `never` (no read since its calendar was added) or `stale`. */
    status: "never" | "stale";
    lastReadAt: string | null;
  };
}

/** `channel.recovered`: the first read of a link after `channel.stale`. */
export interface ChannelRecoveredEvent {
  type: "channel.recovered";
  timestamp: string;
  data: { channel: WebhookChannel; lastReadAt: string };
}

/** `channel.exposed`: nights a channel may still sell, exposed longer than twice its usual interval (at least 6 h); once per night. */
export interface ChannelExposedEvent {
  type: "channel.exposed";
  timestamp: string;
  data: {
    channel: WebhookChannel;
    lastReadAt: string;
    usualIntervalSeconds: number | null;
    nights: Array<{ date: string; reservationId: string; source: CalendarSource | "direct"; since: string }>;
  };
}
