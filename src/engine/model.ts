// The engine's own vocabulary: normalised feed events and stored reservations.
import type { CalendarSource, SyncError, WebhookEvent } from "../types.js";

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
  /** A tentative booking ("Provisoire - Name", "Tentative"): held, not yet confirmed. */
  tentative?: boolean;
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
  /**
   * The zone a timed event was written in: its DTSTART `TZID` (an IANA name or a numeric offset), else
   * the feed's `X-WR-TIMEZONE`. Absent for all-day events and for UTC times in a feed without a zone.
   */
  zone?: string;
  /**
   * Set by echo detection (`engine/echoes.ts`), never by the parser: the id of the reservation whose nights
   * this event repeats after the channel imported calsync's feed (CONTRACT §8). An echo's `kind` is `block`.
   */
  echoOf?: string;
}

/** A stay as calendar dates (CONTRACT §8): `arrival` is the first night, `departure` the morning after the last. */
export interface Nights {
  arrival: string;
  departure: string;
}

/** A feed event with the nights it takes at its property. */
export type DatedEvent = FeedEvent & Nights;

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
  /** First night, `YYYY-MM-DD`, as computed when the row was written (CONTRACT §8). */
  arrival: string;
  /** The morning after the last night, `YYYY-MM-DD` (exclusive). */
  departure: string;
  /** The event's own zone (`FeedEvent.zone`), kept so the nights can be recomputed when the property's zone changes. */
  eventZone: string | null;
  /** The reservation this one echoes (CONTRACT §8), null when it is none. @default null */
  echoOf?: string | null;
  /** ISO time when the row's current nights were first seen: set on insert, when its nights change and when it comes back. */
  nightsSeenAt?: string;
}

/** Start of the identity of an event without UID (a hash of its start, end and summary follows). */
export const NO_UID_PREFIX = "nouid:";

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
  /** The property's IANA time zone, where its nights are counted; null when not set. */
  timeZone: string | null;
  url: string;
  etag: string | null;
  lastModified: string | null;
  /** SHA-256 (hex) of the last body that was parsed successfully. */
  contentHash: string | null;
  /** `reservationsFound` of the last successful sync, reported again when the feed did not change. */
  lastFound: number;
  /** Failed syncs in a row before this run (CONTRACT §8); decides `calendar.failed` and `calendar.recovered`. */
  consecutiveFailures: number;
  /** ISO time of the first failure of the current streak; null when the last sync succeeded. */
  failingSince: string | null;
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
  inserts: DatedEvent[];
  /** Known rows to overwrite with the event's data and set `active` (changed, or back from cancelled). */
  updates: Array<{ id: string; event: DatedEvent }>;
  /** Ids of active rows to mark `cancelled`. */
  cancels: string[];
  feed: FeedState;
  syncedAt: Date;
  /**
   * When the feed was requested: the nights this write gives a row for the first time (new rows, moved
   * nights, rows back from cancelled) are first seen then, for echo detection. @default syncedAt
   */
  seenAt?: Date;
  /**
   * The property's zone the events' nights were read in. Should the property's zone have changed
   * since, the store reads them again in the zone it holds at commit. @default null
   */
  timeZone?: string | null;
  /** Ids for `inserts`, same order, so that events can name the rows. @default made by the store */
  insertIds?: string[];
  /** Webhook events (CONTRACT §11) to write to the outbox in the same transaction. @default none */
  events?: WebhookEvent[];
}

/** A failure to remember on the calendar (nothing else is written). */
export interface CalendarFailure {
  calendarId: string;
  error: SyncError;
  failedAt: Date;
  /** Webhook events to write to the outbox with the failure, in the same transaction. @default none */
  events?: WebhookEvent[];
}

/** What started a run, kept in the sync history. */
export type SyncTrigger = "cli" | "api" | "schedule" | "demo" | "dashboard";
