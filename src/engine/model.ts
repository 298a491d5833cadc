// The engine's own vocabulary: normalised feed events and stored reservations.
import type { CalendarSource, SyncError } from "../types.js";

/** `booking` is a guest stay; `block` is an owner block ("Not available", "CLOSED"). */
export type ReservationKind = "booking" | "block";

/** A reservation is `active` until the feed loses it (before it ended) or marks it cancelled. */
export type ReservationStatus = "active" | "cancelled";

/** What a channel's feed tells beyond dates; every field optional. */
export interface ReservationDetails {
  reservationCode?: string;
  reservationUrl?: string;
  phoneLast4?: string;
  guestName?: string;
  description?: string;
}

/**
 * One normalised event of a feed.
 * `start`/`end` are `YYYY-MM-DD` for all-day events (as written in the feed) and ISO-8601 UTC
 * instants (`2026-01-02T15:00:00.000Z`) for timed ones; `end` is exclusive.
 */
export interface FeedEvent {
  /** Identity within the calendar: the UID (plus recurrence date), or a hash of start, end, summary. */
  uid: string;
  kind: ReservationKind;
  start: string;
  end: string;
  summary: string;
  /** The feed marks it `STATUS:CANCELLED`. */
  cancelled: boolean;
  details: ReservationDetails;
  /** Raw iCalendar properties kept for later use (name → value). */
  raw: Record<string, string>;
}

/** A reservation as the store holds it. */
export interface StoredReservation {
  id: string;
  calendarId: string;
  uid: string;
  kind: ReservationKind;
  status: ReservationStatus;
  start: string;
  end: string;
  summary: string;
  details: ReservationDetails;
}

/** True when `date` is a `YYYY-MM-DD` all-day date rather than a UTC instant. */
export function isAllDay(date: string): boolean {
  return date.length === 10;
}

/** A calendar as the engine sees it, with what the last fetch left behind. */
export interface CalendarRecord {
  id: string;
  propertyId: string;
  propertyName: string;
  source: CalendarSource;
  url: string;
  etag: string | null;
  lastModified: string | null;
  /** SHA-256 (hex) of the last body that was parsed successfully. */
  contentHash: string | null;
  /** `reservationsFound` of the last successful sync, reported again when the feed did not change. */
  lastFound: number;
}

/** Validators and bookkeeping written with a successful calendar. */
export interface FeedState {
  etag: string | null;
  lastModified: string | null;
  contentHash: string | null;
  lastFound: number;
}

/** Everything one successful calendar sync writes, applied in one transaction. */
export interface CalendarWrite {
  calendarId: string;
  /** New identities. */
  inserts: FeedEvent[];
  /** Known rows to overwrite with the event's data and set `active` (changed, or back from cancelled). */
  updates: Array<{ id: string; event: FeedEvent }>;
  /** Ids of active rows to mark `cancelled`. */
  cancels: string[];
  feed: FeedState;
  syncedAt: Date;
}

/** A failure to remember on the calendar (nothing else is written). */
export interface CalendarFailure {
  calendarId: string;
  error: SyncError;
  failedAt: Date;
}

/** What started a run, kept in the sync history. */
export type SyncTrigger = "cli" | "api" | "schedule" | "demo" | "dashboard";
