// The engine reaches storage only through this port, so another store (e.g. PostgreSQL) can come later.
import type { SyncResponse, WebhookEvent } from "../types.js";
import type { ConflictInput } from "./conflicts.js";
import type { OutboundFetchRecord } from "./echoes.js";
import type {
  CalendarFailure,
  CalendarRecord,
  CalendarWrite,
  FeedState,
  StoredReservation,
  SyncTrigger,
} from "./model.js";

/** One finished run, for the sync history. */
export interface SyncRunRecord {
  /** Id to record the run under, so that others waiting for it can read its response. @default a new id */
  id?: string;
  ownerId: string;
  trigger: SyncTrigger;
  dryRun: boolean;
  startedAt: Date;
  /** Same order as `response.results`; lets the store link each entry to its calendar. */
  calendarIds: string[];
  response: SyncResponse;
  /** Webhook events to write to the outbox with the run, in the same transaction (`sync.completed`). @default none */
  events?: WebhookEvent[];
  /**
   * The owner's double bookings now, each with its `booking.conflict` event: an event is written only for a
   * key the owner has not been told about; keys no longer among these are forgotten, so a double booking
   * that ends and comes back is announced again. @default none (nothing remembered changes)
   */
  conflicts?: ConflictAnnouncement[];
}

/** A double booking as the outbox remembers it: a stable key and the event announcing it. */
export interface ConflictAnnouncement {
  /** The property and the sorted ids of the reservations in conflict. */
  key: string;
  event: WebhookEvent;
}

/** Failures in a row at which a calendar is reported as failing (a warning in the server's log). */
export const FAILING_STREAK = 3;

/** A calendar's run of failures (CONTRACT §8). */
export interface CalendarStreak {
  /** Failed syncs in a row, this one included. */
  consecutiveFailures: number;
  /** ISO time of the first failure of the streak. */
  failingSince: string | null;
}

/** Storage operations the sync engine needs. Methods are async so that a networked store fits. */
export interface SyncStore {
  /** The owner's property count and calendars, ordered by property name, then calendar creation. */
  ownerCalendars(ownerId: string): Promise<{ propertiesChecked: number; calendars: CalendarRecord[] }>;
  /** Every reservation (active and cancelled) of one calendar. */
  calendarReservations(calendarId: string): Promise<StoredReservation[]>;
  /** Applies one calendar's changes and feed state in a single transaction: all or nothing. */
  applyCalendarSync(write: CalendarWrite): Promise<void>;
  /**
   * Writes the bookkeeping of calendars whose feed did not change (a 304 or the same body) in one transaction:
   * each ends as `applyCalendarSync` with no rows would leave it (feed state, success, streak ended, its
   * events in the outbox). A calendar removed meanwhile is skipped.
   */
  recordUnchangedSyncs(unchanged: readonly UnchangedSync[]): Promise<void>;
  /**
   * Records a failed attempt on the calendar and lengthens its streak; reservations stay untouched.
   * A success (`applyCalendarSync`) ends the streak. A calendar removed meanwhile gives a streak of 0.
   */
  recordCalendarFailure(failure: CalendarFailure): Promise<CalendarStreak>;
  /**
   * `recordCalendarFailure` for many calendars in one transaction; the streaks in the order of `failures`
   * (a calendar removed meanwhile gives a streak of 0, as there).
   */
  recordCalendarFailures(failures: readonly CalendarFailure[]): Promise<CalendarStreak[]>;
  /** Appends a run and its per-calendar results to the history. */
  recordSyncRun(run: SyncRunRecord): Promise<void>;
  /**
   * The property's outbound fetch log for echo detection: the recent records of each URL (`exclude` set),
   * oldest first. Records of one URL never overlap: a new one starts when the served body changes.
   */
  propertyOutboundFetches(propertyId: string): Promise<OutboundFetchRecord[]>;
  /**
   * Every active booking (not blocks) of one property with its nights, for double-booking detection. None
   * when the property has fewer than two calendars (both stores): two bookings of one calendar never conflict.
   */
  propertyActiveBookings(propertyId: string): Promise<ConflictInput[]>;
  /** Feed hosts that asked calsync to wait (CONTRACT §4, Retry-After) and whose wait is not over at `now`. */
  hostBackoffs(now: Date): Promise<HostBackoff[]>;
  /** Sends `host` nothing before `until`, on every process and instance of the database (a later time kept wins). */
  holdHost(host: string, until: Date): Promise<void>;
}

/** One calendar's "nothing changed" bookkeeping (see `recordUnchangedSyncs`). */
export interface UnchangedSync {
  calendarId: string;
  feed: FeedState;
  syncedAt: Date;
  /** Webhook events of the success (at most `calendar.recovered`). @default none */
  events?: WebhookEvent[];
}

/** A feed host's wait as stored: `host[:port]` of the feed URL, lower case. */
export interface HostBackoff {
  host: string;
  until: Date;
}
