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
  | "blocked_address";

/** Error detail of a failed calendar; `message` never holds a feed URL's secret parts. */
export interface SyncError {
  code: SyncErrorCode;
  message: string;
  /** Present for `http_error`: the status the feed answered. */
  httpStatus?: number;
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
  source: CalendarSource;
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
  | "unavailable";

/** Body of every non-2xx answer. */
export interface ErrorBody {
  ok: false;
  error: { code: ApiErrorCode; message: string };
}
