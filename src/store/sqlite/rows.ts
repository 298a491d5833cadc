// Row shapes of the SQLite tables and their mapping to the records the store returns.
import type { ReservationDetails, ReservationKind, ReservationStatus, StoredReservation } from "../../engine/model.js";
import { TOKEN_SCOPES, type Reservation, type ReservationSource, type TokenScope } from "../../resource-types.js";
import type { CalendarSource, SyncErrorCode } from "../../types.js";
import type { Calendar, Owner, Property, ReservationRow, SyncRunRow, TokenRecord } from "../types.js";

export interface OwnerRow { id: string; name: string; email: string | null; created_at: string }
export interface TokenRow {
  id: string; owner_id: string; name: string; prefix: string; hash: string; created_at: string;
  expires_at: string | null; revoked_at: string | null; last_used_at: string | null; scopes: string;
}
export interface PropertyRow {
  id: string; owner_id: string; name: string; feed_token: string | null; created_at: string; time_zone: string | null;
  check_in_time: string; check_out_time: string; buffer_nights: number; cleaner_emails: string;
}
export interface CalendarRow {
  id: string; property_id: string; owner_id: string; property_name: string; property_time_zone: string | null;
  url: string; source: string; consecutive_failures: number; failing_since: string | null;
  etag: string | null; last_modified: string | null; content_hash: string | null; last_found: number;
  last_status: string | null; last_error_code: string | null; last_error_message: string | null;
  last_synced_at: string | null; created_at: string;
}
export interface ReservationDbRow {
  id: string; calendar_id: string; uid: string; kind: string; status: string; start: string; end: string;
  summary: string; details: string; arrival: string; departure: string; event_zone: string | null;
  echo_of: string | null; nights_seen_at: string; property_id?: string; source?: string;
  note?: string | null; created_at?: string; updated_at?: string;
}
/** `dry_run` and `ok` are 0/1 in SQLite, booleans in PostgreSQL. */
export interface SyncRunDbRow {
  id: string; owner_id: string; trigger: string; dry_run: number | boolean; started_at: string; duration_ms: number;
  ok: number | boolean; synced_calendars: number; failed: number;
}

export const toOwner = (row: OwnerRow): Owner => ({ id: row.id, name: row.name, email: row.email, createdAt: row.created_at });

export const toToken = (row: TokenRow): TokenRecord => ({
  id: row.id,
  ownerId: row.owner_id,
  name: row.name,
  prefix: row.prefix,
  hash: row.hash,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  lastUsedAt: row.last_used_at,
  scopes: row.scopes.split(",").filter((scope): scope is TokenScope => (TOKEN_SCOPES as readonly string[]).includes(scope)),
});

export const toProperty = (row: PropertyRow): Property => ({
  id: row.id,
  ownerId: row.owner_id,
  name: row.name,
  createdAt: row.created_at,
  feedToken: row.feed_token,
  timeZone: row.time_zone,
  checkInTime: row.check_in_time,
  checkOutTime: row.check_out_time,
  bufferNights: Number(row.buffer_nights),
  cleanerEmails: JSON.parse(row.cleaner_emails) as string[],
});

export const toCalendar = (row: CalendarRow): Calendar => ({
  id: row.id,
  propertyId: row.property_id,
  ownerId: row.owner_id,
  source: row.source as CalendarSource,
  url: row.url,
  createdAt: row.created_at,
  lastSyncedAt: row.last_synced_at,
  lastStatus: row.last_status as Calendar["lastStatus"],
  lastErrorCode: row.last_error_code as SyncErrorCode | null,
  lastErrorMessage: row.last_error_message,
  consecutiveFailures: row.consecutive_failures,
  failingSince: row.failing_since,
});

export const toStoredReservation = (row: ReservationDbRow): StoredReservation => ({
  id: row.id,
  calendarId: row.calendar_id,
  uid: row.uid,
  kind: row.kind as ReservationKind,
  status: row.status as ReservationStatus,
  start: row.start,
  end: row.end,
  summary: row.summary,
  details: JSON.parse(row.details) as ReservationDetails,
  arrival: row.arrival,
  departure: row.departure,
  eventZone: row.event_zone,
  echoOf: row.echo_of,
  nightsSeenAt: row.nights_seen_at,
});

/** A stored reservation with the property and channel of its calendar (the listing's row). */
export const toReservationRow = (row: ReservationDbRow): ReservationRow => {
  const { id, calendarId, nightsSeenAt: _seen, echoOf = null, ...rest } = toStoredReservation(row);
  return { id, propertyId: row.property_id!, calendarId, source: row.source as CalendarSource, ...rest, echoOf };
};

export const toSyncRun = (row: SyncRunDbRow): SyncRunRow => ({
  id: row.id,
  ownerId: row.owner_id,
  trigger: row.trigger as SyncRunRow["trigger"],
  dryRun: Boolean(row.dry_run),
  startedAt: row.started_at,
  durationMs: row.duration_ms,
  ok: Boolean(row.ok),
  syncedCalendars: row.synced_calendars,
  failed: row.failed,
});

/** The reservation columns `toApiReservation` reads (`r` the reservations table). */
export const API_COLUMNS = "r.id, r.calendar_id, r.kind, r.status, r.arrival, r.departure, r.summary, r.note, r.echo_of, r.created_at, r.updated_at";

/** A reservation row joined with its calendar (`property_id`, `source`), as API v1 shows it (CONTRACT §14). */
export const toApiReservation = (row: ReservationDbRow): Reservation => ({
  id: row.id,
  propertyId: row.property_id!,
  calendarId: row.calendar_id,
  source: row.source as ReservationSource,
  kind: row.kind as ReservationKind,
  status: row.status as ReservationStatus,
  arrival: row.arrival,
  departure: row.departure,
  summary: row.summary,
  note: row.note ?? null,
  echoOf: row.echo_of,
  createdAt: row.created_at!,
  updatedAt: row.updated_at!,
});
