// Records the store hands to the doors (CLI, server). The engine's own view is engine/store-port.ts.
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { AvailabilityInput } from "../engine/availability.js";
import type { ServedNights } from "../engine/echoes.js";
import type { OutboundReservation } from "../engine/outbound-feed.js";
import type { SyncStore } from "../engine/store-port.js";
import type { ReservationDetails, ReservationKind, ReservationStatus, SyncTrigger } from "../engine/model.js";
import type { ReservationSource, TokenScope } from "../resource-types.js";
import type { CalendarSource, SyncErrorCode, SyncResponse } from "../types.js";
import type { ResourceQueries } from "./direct-stay-types.js";
import type { ChannelQueries } from "./channel-types.js";
import type { UnsubscribeOutcome } from "./cleaner-mails.js";
import type {
  ClaimedWebhookDelivery,
  WebhookAttempt,
  InterruptedWebhookAttempt,
  WebhookClaim,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookSubscription,
} from "./webhook-types.js";

import type { ClaimedMail, InterruptedMailAttempt, MailAttempt, MailClaim, MailRecord, NotificationSettings, QueuedMail } from "./mail-types.js";

export type * from "./webhook-types.js";
export type * from "./direct-stay-types.js";
export type * from "./mail-types.js";
export type * from "./channel-types.js";

export interface Owner {
  id: string;
  name: string;
  /** Sign-in name of the dashboard (CONTRACT §9), stored lower-case; null until set. */
  email: string | null;
  createdAt: string;
}

/** A one-time dashboard invite: only the SHA-256 hash of its token is stored. */
export interface InviteRecord {
  id: string;
  ownerId: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

/** A signed-in browser: only the SHA-256 hash of its cookie value is stored. */
export interface SessionRecord {
  id: string;
  ownerId: string;
  createdAt: string;
  lastSeenAt: string;
}

/**
 * A password check counted before it is made: `attempt` to give back when the password matched, or,
 * when a key is full, the time of the counted attempt whose leaving the window frees a place.
 */
export type SignInReservation = { reserved: true; attempt: string } | { reserved: false; freedBy: string };

/** An API token as stored: never the token itself, only its SHA-256 hash and a display prefix. */
export interface TokenRecord {
  id: string;
  ownerId: string;
  name: string;
  /** First characters of the token (e.g. `cs_AbC1`), for people to recognise it. */
  prefix: string;
  /** SHA-256 of the whole token, hex. */
  hash: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  /** What the token may do (CONTRACT §14); tokens made before scopes have all three. */
  scopes: TokenScope[];
}

export interface Property {
  id: string;
  ownerId: string;
  name: string;
  createdAt: string;
  /** Secret of the outbound feed URL (`/ical/<feedToken>.ics`), null until first asked for. */
  feedToken: string | null;
  /** IANA time zone where the property's nights are counted (CONTRACT §8); null when not set. */
  timeZone: string | null;
  /** Check-in and check-out times, `HH:MM` (24 h) in the property's zone (CONTRACT §18). */
  checkInTime: string;
  checkOutTime: string;
  /** Nights kept free before every booking's arrival and after its departure, 0–7 (CONTRACT §18). */
  bufferNights: number;
  /** The cleaners' addresses (at most 5), mailed about turnovers. */
  cleanerEmails: string[];
}

/** What `updateProperty` may change; a field left out stays as it is. */
export interface PropertyChanges {
  name?: string;
  /** An IANA zone name already checked by the caller, or null to unset. */
  timeZone?: string | null;
  /** The turnover settings (CONTRACT §18), already checked by the caller (resources/property-settings.ts). */
  checkInTime?: string;
  checkOutTime?: string;
  bufferNights?: number;
  cleanerEmails?: string[];
}

/** A calendar as listed to people; `url` is the stored (unmasked) URL: mask it before printing. */
export interface Calendar {
  id: string;
  propertyId: string;
  ownerId: string;
  /** `direct` only for the calendar of stays entered in calsync (listed only when asked for). */
  source: ReservationSource;
  url: string;
  createdAt: string;
  lastSyncedAt: string | null;
  lastStatus: "success" | "failed" | null;
  lastErrorCode: SyncErrorCode | null;
  lastErrorMessage: string | null;
  /** Failed syncs in a row (0 after a success), CONTRACT §8. */
  consecutiveFailures: number;
  /** ISO time of the first failure of the current streak; null when the last sync succeeded. */
  failingSince: string | null;
}

/** A reservation joined with its calendar, as `calsync reservations` lists it. */
export interface ReservationRow {
  id: string;
  propertyId: string;
  calendarId: string;
  source: ReservationSource;
  uid: string;
  kind: ReservationKind;
  status: ReservationStatus;
  start: string;
  end: string;
  summary: string;
  details: ReservationDetails;
  /** First night, `YYYY-MM-DD` (CONTRACT §8). */
  arrival: string;
  /** The morning after the last night, `YYYY-MM-DD` (exclusive). */
  departure: string;
  /** The zone the event was written in, null for all-day events and plain UTC. */
  eventZone: string | null;
  /** The reservation this one is a channel's echo of (CONTRACT §8), else null. */
  echoOf: string | null;
}

/** What the availability rule (engine/availability.ts) reads of one property's reservations in a range. */
export interface AvailabilityRows {
  /** The active reservations of every calendar of the property with a night in the range: dates and echo only, nothing about the guest. */
  reservations: AvailabilityInput[];
  /** The status of the stays those reservations echo (a cancelled one frees its echo's nights), whatever their dates. */
  echoTargets: Array<{ id: string; status: ReservationStatus }>;
}

/** The private feeds of CONTRACT §18, each with its own secret: a property's cleaning feed, an owner's, and the owner's calendar. */
export type PrivateFeed = "property-cleaning" | "owner-cleaning" | "owner-calendar";

/** A reservation as the owner's own calendar shows it: with the guest's details, for the owner's eyes only. */
export interface OwnerCalendarReservation {
  id: string;
  propertyId: string;
  source: ReservationSource;
  kind: ReservationKind;
  arrival: string;
  departure: string;
  summary: string;
  /** The owner's note (direct stays), else null. */
  note: string | null;
  /** The DESCRIPTION the channel wrote (Airbnb's "Reservation URL", "Phone Number (Last 4 Digits)"), else null. */
  description: string | null;
}

/** An active booking as turnovers need it. */
export interface TurnoverBooking {
  id: string;
  propertyId: string;
  arrival: string;
  departure: string;
}

/** One fetch of a property's outbound feed (`GET /ical/…`, a 304 included), as the route records it. */
export interface OutboundFetch {
  propertyId: string;
  /** The fetch's `?exclude=` sources. */
  exclude: CalendarSource[];
  /** ETag of the body served, or for a 304 of the body the channel already holds. */
  etag: string;
  /** What the body served (`fetchedNights`); stored only when the ETag differs from the URL's last record. Null for a HEAD: a read of the link (CONTRACT §17) that learns no nights. */
  nights: ServedNights[] | null;
  at: Date;
  /** The read's `User-Agent` (kept for the channel link, ≤ 200 characters). @default null */
  userAgent?: string | null;
}

/** One run of the sync history. */
export interface SyncRunRow {
  id: string;
  ownerId: string;
  trigger: SyncTrigger;
  dryRun: boolean;
  startedAt: string;
  durationMs: number;
  ok: boolean;
  syncedCalendars: number;
  failed: number;
}

/** The lease that makes an owner's sync single flight across processes and instances (CONTRACT §10). */
export interface SyncLease {
  ownerId: string;
  /** The run holding it; the run is recorded in the history under this id. */
  runId: string;
  /** Which process holds it (`host:pid:random`), for the operator. */
  holder: string;
  /** When it lapses unless renewed; an expired lease may be taken over. */
  expiresAt: string;
}

/** What trying to take an owner's lease gave: it, or the live lease of another run. */
export type LeaseAttempt = { acquired: true } | { acquired: false; lease: SyncLease };

/** What claiming a periodic task gave: it, or the milliseconds until it is next due (0: it is, try again). */
export type PeriodicClaim = { claimed: true } | { claimed: false; dueInMs: number };

/** One row as `db copy` moves it: column → value, times as ISO-8601 text, JSON as text, booleans as 0/1. */
export type PortableRow = Record<string, string | number | null>;

/** A batch of one table's rows, in creation order. */
export interface RowBatch {
  table: string;
  rows: PortableRow[];
}

/** The whole store: the engine's port plus administration for the doors. */
export interface Store extends SyncStore, ResourceQueries, ChannelQueries {
  /** Where the data lives: the SQLite file path (or `:memory:`), or the database URL with its password masked. */
  readonly path: string;

  createOwner(name: string, options?: { email?: string | null }): Promise<Owner>;
  listOwners(): Promise<Owner[]>;
  getOwner(id: string): Promise<Owner | undefined>;
  /** Sets (or with null clears) an owner's email; the caller normalises it and checks it is free. */
  setOwnerEmail(id: string, email: string | null): Promise<void>;
  /** The owner signing in with this (normalised) email. */
  findOwnerByEmail(email: string): Promise<Owner | undefined>;
  /** The owner's password hash (`scrypt$…`), null while none is set. */
  ownerPasswordHash(id: string): Promise<string | null>;
  /** Stores a new password hash and ends every session of the owner, in one transaction. */
  setOwnerPassword(id: string, passwordHash: string): Promise<void>;

  /** Stores an invite of `ownerId` by the hash of its token, with `mail` (its link) in the same transaction. */
  createInvite(input: { ownerId: string; hash: string; expiresAt: Date; mail?: QueuedMail }): Promise<InviteRecord>;
  /** The unused invite with this hash that has not expired at `now`. */
  findInvite(hash: string, now: Date): Promise<InviteRecord | undefined>;
  /**
   * Uses the invite with this hash if it is still unused and unexpired at `now`, and retires every
   * other open invite of its owner; resolves to that owner's id, or undefined (nothing changed).
   */
  consumeInvite(hash: string, now: Date): Promise<string | undefined>;

  /** Stores a session by the hash of its cookie value. */
  createSession(input: { ownerId: string; hash: string; at: Date }): Promise<SessionRecord>;
  findSession(hash: string): Promise<SessionRecord | undefined>;
  touchSession(id: string, at: Date): Promise<void>;
  deleteSession(id: string): Promise<void>;
  /** Removes sessions last seen before `before`; resolves to how many. */
  deleteIdleSessions(before: Date): Promise<number>;

  /**
   * Counts one password check under every key (e.g. `email:…`, `ip:…`) before it is made, atomically
   * across processes and instances: when any key already holds `limit` attempts after `since`,
   * nothing is written and the answer says which attempt must leave the window first. Attempts at `since`
   * or older are forgotten on the way.
   */
  reserveSignInAttempt(input: { keys: string[]; at: Date; since: Date; limit: number }): Promise<SignInReservation>;
  /** Gives a reserved attempt back (its password matched): it no longer counts under any key. */
  releaseSignInAttempt(attempt: string): Promise<void>;
  /** Times (ISO, oldest first) of the attempts counted under `key` at or after `since`. */
  signInFailures(key: string, since: Date): Promise<string[]>;
  /** Forgets the attempts under `key`. */
  clearSignInFailures(key: string): Promise<void>;

  /** Stores an already generated token's hash; the caller shows the plain token once. */
  /** `scopes` @default every scope */
  createToken(input: { ownerId: string; name: string; prefix: string; hash: string; expiresAt: Date | null; scopes?: readonly TokenScope[] }): Promise<TokenRecord>;
  listTokens(ownerId?: string): Promise<TokenRecord[]>;
  /** The token with this hash, whatever its state (the caller decides expired/revoked). */
  findTokenByHash(hash: string): Promise<TokenRecord | undefined>;
  /** Marks a token revoked; false when no such token exists. */
  revokeToken(id: string, at?: Date): Promise<boolean>;
  touchToken(id: string, at?: Date): Promise<void>;

  /** `timeZone`: an IANA zone name already checked by the caller (default: none). */
  createProperty(ownerId: string, name: string, timeZone?: string | null): Promise<Property>;
  /**
   * Renames a property and/or sets its time zone; a new zone recomputes the arrival and departure of
   * every reservation of the property in the same transaction, and either change moves its outbound
   * feed's Last-Modified. `nightsChanged` counts the reservations whose nights moved. Undefined when unknown.
   */
  updateProperty(id: string, changes: PropertyChanges): Promise<{ property: Property; nightsChanged: number } | undefined>;
  listProperties(ownerId?: string): Promise<Property[]>;
  /**
   * At most `limit` properties of every owner in id order, after `afterId` (null: from the first): a pass over
   * every property (the channel check, the metrics) reads a page at a time instead of holding them all.
   */
  propertiesAfter(afterId: string | null, limit: number): Promise<Property[]>;
  getProperty(id: string): Promise<Property | undefined>;
  /** Removes a property with its calendars and reservations; false when unknown. */
  removeProperty(id: string): Promise<boolean>;
  setPropertyFeedToken(id: string, feedToken: string | null): Promise<void>;
  getPropertyByFeedToken(feedToken: string): Promise<Property | undefined>;
  /**
   * The property's outbound feed token, created (32 random base62 characters) on first use;
   * `rotate` replaces it, so the old URL stops working. Undefined when there is no such property.
   */
  propertyFeedToken(id: string, options?: { rotate?: boolean }): Promise<string | undefined>;

  createCalendar(input: { propertyId: string; url: string; source: CalendarSource }): Promise<Calendar>;
  /** Channel calendars only, unless `includeDirect` (the API's Property lists the `direct` one too). */
  listCalendars(filter?: { ownerId?: string; propertyId?: string; includeDirect?: boolean }): Promise<Calendar[]>;
  getCalendar(id: string): Promise<Calendar | undefined>;
  /** Removes a calendar with its reservations; false when unknown. */
  removeCalendar(id: string): Promise<boolean>;

  /** Reservations ordered by property, arrival, start, calendar. */
  listReservations(filter?: { ownerId?: string; propertyId?: string; status?: ReservationStatus }): Promise<ReservationRow[]>;
  /**
   * The active reservations of every calendar of a property, as its outbound feed needs them, and the
   * latest `updated_at` of any of its reservations (cancelled ones too; null when it has none).
   */
  propertyFeedReservations(propertyId: string): Promise<{ reservations: OutboundReservation[]; updatedAt: string | null }>;

  /** What `availabilityNights` needs to answer for the nights in [from, to) of a property, from one snapshot. */
  availabilityReservations(propertyId: string, range: { from: string; to: string }): Promise<AvailabilityRows>;

  /**
   * The active bookings (not echoes) of one property, or of all of an owner's, that end on or after
   * `departingFrom`: what turnovers are made of (CONTRACT §18). Dates and ids only, nothing about the guest.
   */
  turnoverBookings(filter: { ownerId?: string; propertyId?: string; departingFrom: string }): Promise<TurnoverBooking[]>;

  /**
   * The secret of a private feed (CONTRACT §18): `read` answers it (null until made; reading never makes
   * one), `make` makes one on first ask (two askers get the same), `rotate` issues a new one, `revoke`
   * switches the feed off. `id` is the property's (`property-cleaning`) or the owner's.
   */
  feedSecret(feed: PrivateFeed, id: string, action: "read" | "make" | "rotate" | "revoke"): Promise<string | null>;
  /** The property or owner id whose private feed `token` opens, or undefined. */
  findFeedSecret(feed: PrivateFeed, token: string): Promise<string | undefined>;
  /** The owner's active reservations that end on or after `departingFrom`, echoes left out, for their own calendar (CONTRACT §18). */
  ownerCalendarReservations(ownerId: string, departingFrom: string): Promise<OwnerCalendarReservation[]>;

  /**
   * Records one fetch of a property's outbound feed in one small write: the URL's last record (same
   * property and exclude set) gets the new time when its ETag is the same, else a new record starts with
   * the nights served (and the URL's oldest records are pruned, `FETCH_LOG_KEEP_PER_URL`, `FETCH_LOG_MAX_AGE_DAYS`).
   */
  recordOutboundFetch(fetch: OutboundFetch): Promise<void>;

  listSyncRuns(filter?: { ownerId?: string; limit?: number }): Promise<SyncRunRow[]>;
  /** The Sync response a recorded run returned; undefined while no run of that id is recorded. */
  syncRunResponse(runId: string): Promise<SyncResponse | undefined>;

  /** Takes the owner's sync lease for `runId` for `ttlMs` unless another run holds a live one; an expired one is taken over. */
  acquireSyncLease(input: { ownerId: string; runId: string; holder: string; ttlMs: number }): Promise<LeaseAttempt>;
  /** Extends a held lease by `ttlMs` from now; false when it is no longer this run's. */
  renewSyncLease(input: { ownerId: string; runId: string; ttlMs: number }): Promise<boolean>;
  /** Gives the lease up, if it is still this run's. */
  releaseSyncLease(input: { ownerId: string; runId: string }): Promise<void>;
  /** The owner's live (unexpired) lease, if any. */
  syncLease(ownerId: string): Promise<SyncLease | undefined>;
  /**
   * Claims the owners whose scheduled sync is due (with calendars, no live lease) and marks each due
   * again at its next slot, so that N instances sync each owner once per period. Each owner has its own
   * point of the period (schedule-slots.ts), so owners are spread over it; each is next due at its first
   * slot after half a period from now, a new one too.
   */
  claimScheduledSyncs(input: { everyMs: number }): Promise<string[]>;
  /**
   * Claims the periodic task `name` (the channel check) when it is due: never run, or its next time come.
   * Claimed for one caller across every process on the database, which then holds it for `holdMs` (its next
   * time becomes now + holdMs), so a holder that dies mid-run frees it after that; every other caller learns
   * how long until it is due.
   */
  claimPeriodicTask(input: { name: string; holdMs: number }): Promise<PeriodicClaim>;
  /** Sets the next time of periodic task `name` to now + `inMs`: its runner calls it when done. */
  schedulePeriodicTask(input: { name: string; inMs: number }): Promise<void>;

  /**
   * A fixed-window counter of `limit` requests per key and `windowSeconds`, kept in the database so that
   * every process on it shares the counts (PostgreSQL: rate-limiter-flexible's RateLimiterPostgres);
   * undefined where the caller should count in its own memory (SQLite: one server per file).
   */
  sharedRateLimiter(policy: { limit: number; windowSeconds: number; /** Keeps one budget's counts apart from another's. @default "sync" */ keyPrefix?: string }): Promise<RateLimiterAbstract | undefined>;

  /** Names of the tables in this database (the schema's, not calsync's bookkeeping beside it). */
  tableNames(): Promise<string[]>;
  /** Row counts of `tables`. */
  countRows(tables: readonly string[]): Promise<Record<string, number>>;
  /** Every row of `tables`, table by table in creation order, from one consistent snapshot. */
  exportRows(tables: readonly string[]): AsyncIterable<RowBatch>;
  /**
   * Writes `batches` in one transaction into a database where every table of `tables` is empty;
   * refuses with `DatabaseNotEmptyError`, writing nothing, otherwise. Resolves to the rows written per table.
   */
  importRows(tables: readonly string[], batches: AsyncIterable<RowBatch>): Promise<Record<string, number>>;

  /** Stores a webhook endpoint with its (already generated) secret. */
  createWebhookEndpoint(input: { ownerId: string; url: string; events: WebhookSubscription[]; secret: string }): Promise<WebhookEndpoint>;
  /** Endpoints in creation order, of one owner or of all. */
  listWebhookEndpoints(ownerId?: string): Promise<WebhookEndpoint[]>;
  getWebhookEndpoint(id: string): Promise<WebhookEndpoint | undefined>;
  /** Removes an endpoint with its deliveries (pending ones are never sent); false when unknown. */
  removeWebhookEndpoint(id: string): Promise<boolean>;
  /** Deliveries, newest event first. */
  listWebhookDeliveries(filter?: { ownerId?: string; endpointId?: string; limit?: number }): Promise<WebhookDelivery[]>;
  /**
   * Claims pending deliveries due at `now` that nobody holds (or whose claim ran out), oldest first, at most
   * one per endpoint; each is then attempted by this worker alone until it finishes it or `until` passes.
   */
  claimWebhookDeliveries(claim: WebhookClaim): Promise<ClaimedWebhookDelivery[]>;
  /** Records an attempt of a delivery this worker holds, and releases it; ignored when the claim was lost. */
  finishWebhookDelivery(attempt: WebhookAttempt): Promise<void>;
  /**
   * Gives back a delivery whose attempt this worker cut short (it is stopping): the attempt does not count,
   * so even a last allowed one is made again, and the delivery stays due; ignored when the claim was lost.
   */
  releaseWebhookDelivery(attempt: InterruptedWebhookAttempt): Promise<void>;
  /** Deliveries still to be made (the outbox depth). */
  countPendingWebhookDeliveries(): Promise<number>;
  /** Removes events created before `before` that nothing is pending for; resolves to how many. */
  pruneWebhookEvents(before: Date): Promise<number>;

  /**
   * Claims pending mails due at `now`, unexpired, that nobody holds (or whose claim ran out), oldest first;
   * each is then sent by this worker alone until it finishes it or `until` passes (CONTRACT §16).
   */
  claimMails(claim: MailClaim): Promise<ClaimedMail[]>;
  /** Records an attempt of a mail this worker holds; a mail sent or given up forgets its payload. Ignored when the claim was lost. */
  finishMail(attempt: MailAttempt): Promise<void>;
  /** Gives back a mail whose attempt this worker cut short: it does not count and stays due. */
  releaseMail(attempt: InterruptedMailAttempt): Promise<void>;
  /**
   * Gives up pending mails expired at `now`, and removes sent or failed mails created before `before` (resolves to
   * how many) and cleaners' unsubscribe tokens older than UNSUBSCRIBE_KEPT_MS at `now`.
   */
  pruneMails(before: Date, now?: Date): Promise<number>;
  /** Mails newest first, of one owner or of all (without payloads). */
  listMails(ownerId?: string): Promise<MailRecord[]>;
  /** Which mails the owner wants (both true for an unknown owner: the defaults). */
  ownerNotifications(ownerId: string): Promise<NotificationSettings>;
  setOwnerNotifications(ownerId: string, settings: NotificationSettings): Promise<void>;
  /**
   * A cleaner's one-click unsubscribe (CONTRACT §18): the token (plain, as in the link) removes its own address
   * from its own property, once. `already` for a token used before or an address no longer listed.
   */
  unsubscribeCleaner(token: string, at?: Date): Promise<UnsubscribeOutcome>;

  /** Cheap query proving the database answers (health checks): false once closed; rejects with `StoreUnavailableError` when unreachable. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
