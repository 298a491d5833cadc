// Schema steps, applied in order; `PRAGMA user_version` records how many ran.
import type Database from "better-sqlite3";

/** Each step's SQL; step n brings a file from `user_version` n−1 to n. */
export const MIGRATIONS: readonly string[] = [
  // 1: the whole first schema.
  `
  CREATE TABLE owners (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    prefix TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    revoked_at TEXT,
    last_used_at TEXT
  );
  CREATE INDEX api_tokens_owner ON api_tokens(owner_id);
  CREATE TABLE properties (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    feed_token TEXT UNIQUE,
    created_at TEXT NOT NULL
  );
  CREATE INDEX properties_owner ON properties(owner_id, name);
  CREATE TABLE calendars (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    property_id TEXT NOT NULL REFERENCES properties(id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    source TEXT NOT NULL,
    etag TEXT,
    last_modified TEXT,
    content_hash TEXT,
    last_found INTEGER NOT NULL DEFAULT 0,
    last_status TEXT,
    last_error_code TEXT,
    last_error_message TEXT,
    last_synced_at TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX calendars_property ON calendars(property_id, seq);
  CREATE TABLE reservations (
    id TEXT PRIMARY KEY,
    calendar_id TEXT NOT NULL REFERENCES calendars(id) ON DELETE CASCADE,
    uid TEXT NOT NULL,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    start TEXT NOT NULL,
    "end" TEXT NOT NULL,
    summary TEXT NOT NULL,
    details TEXT NOT NULL,
    raw TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (calendar_id, uid)
  );
  CREATE INDEX reservations_start ON reservations(start);
  CREATE TABLE sync_runs (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    trigger TEXT NOT NULL,
    dry_run INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    duration_ms INTEGER NOT NULL,
    ok INTEGER NOT NULL,
    synced_calendars INTEGER NOT NULL,
    properties_checked INTEGER NOT NULL,
    failed INTEGER NOT NULL
  );
  CREATE INDEX sync_runs_owner ON sync_runs(owner_id, started_at);
  CREATE TABLE sync_run_results (
    run_id TEXT NOT NULL REFERENCES sync_runs(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    calendar_id TEXT REFERENCES calendars(id) ON DELETE SET NULL,
    property_id TEXT NOT NULL,
    source TEXT NOT NULL,
    status TEXT NOT NULL,
    found INTEGER NOT NULL,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    cancelled INTEGER NOT NULL,
    error_code TEXT,
    error_message TEXT,
    http_status INTEGER,
    PRIMARY KEY (run_id, position)
  );
  CREATE INDEX sync_run_results_calendar ON sync_run_results(calendar_id);
  `,
  // 2: no query filters on start alone, and every index costs each insert a page write; a removed
  // calendar takes its reservations with it, so the outbound feed needs its own change time.
  `
  DROP INDEX IF EXISTS reservations_start;
  ALTER TABLE properties ADD COLUMN feed_changed_at TEXT;
  `,
  // 3 (issue 12, CONTRACT §8): nights in the property's time zone, and failure streaks.
  // - A property's IANA zone (null: none set).
  // - Every reservation's arrival and departure (YYYY-MM-DD), stored rather than recomputed per read, and
  //   the zone its event was written in, to recompute them when the property's zone changes. Existing
  //   rows get the rule with no zone known: all-day dates as written, a timed instant by its UTC date,
  //   at least one night (what calsync showed until now).
  // - Validators cleared, so each feed is read in full once more and its events' zones are learnt
  //   (a 304 would otherwise keep the UTC reading until the channel changes the feed).
  // - A calendar's failures in a row and when the streak began; one that last failed counts one, since then.
  `
  ALTER TABLE properties ADD COLUMN time_zone TEXT;
  ALTER TABLE reservations ADD COLUMN arrival TEXT NOT NULL DEFAULT '';
  ALTER TABLE reservations ADD COLUMN departure TEXT NOT NULL DEFAULT '';
  ALTER TABLE reservations ADD COLUMN event_zone TEXT;
  UPDATE reservations SET arrival = substr(start, 1, 10);
  UPDATE reservations SET departure = max(substr("end", 1, 10), date(arrival, '+1 day'));
  ALTER TABLE calendars ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE calendars ADD COLUMN failing_since TEXT;
  UPDATE calendars SET consecutive_failures = 1, failing_since = last_synced_at WHERE last_status = 'failed';
  UPDATE calendars SET etag = NULL, last_modified = NULL, content_hash = NULL;
  `,
  // 4: the owner dashboard (CONTRACT §9): sign-in by email and password, one-time invites, server-side
  // sessions, and failed sign-ins counted in the database so that every instance sees the same counts.
  `
  ALTER TABLE owners ADD COLUMN email TEXT;
  ALTER TABLE owners ADD COLUMN password_hash TEXT;
  CREATE UNIQUE INDEX owners_email ON owners(email);
  CREATE TABLE owner_invites (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
  );
  CREATE INDEX owner_invites_owner ON owner_invites(owner_id);
  CREATE TABLE owner_sessions (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL
  );
  CREATE INDEX owner_sessions_owner ON owner_sessions(owner_id);
  CREATE INDEX owner_sessions_last_seen ON owner_sessions(last_seen_at);
  CREATE TABLE sign_in_failures (
    key TEXT NOT NULL,
    at TEXT NOT NULL
  );
  CREATE INDEX sign_in_failures_key ON sign_in_failures(key, at);
  CREATE INDEX sign_in_failures_at ON sign_in_failures(at);
  `,
  // 5: single flight and the schedule across processes and instances (CONTRACT §10): a run keeps its
  // whole response for those who waited for it; a lease per owner says who is syncing it, until when;
  // the schedule says when each owner is due, so N instances sync it once per period.
  `
  ALTER TABLE sync_runs ADD COLUMN response TEXT;
  CREATE TABLE sync_leases (
    owner_id TEXT PRIMARY KEY REFERENCES owners(id) ON DELETE CASCADE,
    run_id TEXT NOT NULL,
    holder TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
  CREATE TABLE sync_schedule (
    owner_id TEXT PRIMARY KEY REFERENCES owners(id) ON DELETE CASCADE,
    next_run_at TEXT NOT NULL
  );
  `,
  // 6 (issue 15, CONTRACT §11): webhooks. Endpoints per owner (events: a JSON array of types, ["*"] for all);
  // an outbox of events written in the same transaction as the change they announce (payload: the JSON
  // body, sent byte for byte on every attempt); one delivery per event and endpoint with its retry state
  // and a claim (who, until) so that one worker at a time attempts it; and the double bookings an owner
  // has been told about, so that each is announced once.
  `
  CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX webhook_endpoints_owner ON webhook_endpoints(owner_id);
  CREATE TABLE webhook_events (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX webhook_events_created ON webhook_events(created_at);
  CREATE TABLE webhook_deliveries (
    event_id TEXT NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    last_attempt_at TEXT,
    last_status INTEGER,
    last_error TEXT,
    claimed_by TEXT,
    claimed_until TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (event_id, endpoint_id)
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
  CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id);
  CREATE TABLE webhook_conflicts (
    owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    first_seen_at TEXT NOT NULL,
    PRIMARY KEY (owner_id, key)
  );
  `,
  // 7 (issue 18, CONTRACT §8 "Echoes"): what each outbound feed URL served and when, and the reservations
  // that are a channel's echo of another one.
  // - outbound_fetches: one row per (property, exclude set) and distinct body in a row (its ETag), with the
  //   nights it served as JSON `[[reservationId, arrival, departure], …]`, its first and last fetch and how
  //   many fetches it answered. Kept: the newest 5 of each exclude set; a set unfetched for 400 days goes.
  // - reservations.echo_of: the reservation an echo repeats (no foreign key: the original's calendar may be
  //   removed while the channel still exports the echo).
  // - reservations.nights_seen_at: when the row's current nights were first seen; existing rows take their
  //   last change (no fetch was recorded before this step, so none of them is an echo).
  `
  CREATE TABLE outbound_fetches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    property_id TEXT NOT NULL REFERENCES properties(id) ON DELETE CASCADE,
    exclude TEXT NOT NULL,
    etag TEXT NOT NULL,
    first_fetched_at TEXT NOT NULL,
    last_fetched_at TEXT NOT NULL,
    fetches INTEGER NOT NULL,
    nights TEXT NOT NULL
  );
  CREATE INDEX outbound_fetches_url ON outbound_fetches(property_id, exclude, id);
  ALTER TABLE reservations ADD COLUMN echo_of TEXT;
  ALTER TABLE reservations ADD COLUMN nights_seen_at TEXT NOT NULL DEFAULT '';
  UPDATE reservations SET nights_seen_at = COALESCE(NULLIF(updated_at, ''), created_at);
  `,
  // 8 (issue 30, CONTRACT §4 "Retry-After"): feed hosts that asked calsync to wait, and until when, so that
  // `sync --local` from cron honours a wait that `serve` was told of (and every instance on PostgreSQL).
  // A host is `host[:port]` of the feed URL, lower case; rows past their time are ignored and overwritten.
  `
  CREATE TABLE host_backoffs (
    host TEXT PRIMARY KEY,
    until TEXT NOT NULL
  );
  `,
  // 9 (issue 25, CONTRACT §9): sign-in attempts are counted before the password is checked, each under
  // an id, so an attempt whose password matched can be given back under every key at once.
  `
  ALTER TABLE sign_in_failures ADD COLUMN attempt TEXT;
  CREATE INDEX sign_in_failures_attempt ON sign_in_failures(attempt);
  `,
  // 10 (issue 27, CONTRACT §14): API v1 resources and direct stays.
  // - reservations.note: the owner's note on a direct stay (null on channel reservations).
  // - A property's one `direct` calendar (stays entered in calsync, never fetched): at most one per property.
  // - Lists page by (arrival, id) within a property's calendars.
  // - api_tokens.scopes: comma-separated `sync`, `read`, `write`; tokens made before scopes have all three.
  // - idempotency_keys: an `Idempotency-Key` of an owner on one route, with the request's hash and the
  //   answer given (status and JSON body), kept 24 h.
  `
  ALTER TABLE reservations ADD COLUMN note TEXT;
  CREATE UNIQUE INDEX calendars_direct ON calendars(property_id) WHERE source = 'direct';
  CREATE INDEX reservations_calendar_arrival ON reservations(calendar_id, arrival, id);
  ALTER TABLE api_tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT 'sync,read,write';
  CREATE TABLE idempotency_keys (
    owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    route TEXT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status INTEGER NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (owner_id, route, key)
  );
  CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
  `,
  // 11 (issue 29, CONTRACT §16 "Email to owners"): the mail outbox beside the webhook one, and each owner's
  // choice of mails (both on by default). A mail's payload holds an invite or reset link until it is sent, and
  // is cleared once the mail is sent or given up (expires_at: the link's end, or a day and a bit for news).
  `
  CREATE TABLE mail_outbox (
    id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES owners(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    payload TEXT,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    last_attempt_at TEXT,
    last_error TEXT,
    claimed_by TEXT,
    claimed_until TEXT,
    expires_at TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX mail_outbox_due ON mail_outbox(status, next_attempt_at);
  CREATE INDEX mail_outbox_owner ON mail_outbox(owner_id);
  ALTER TABLE owners ADD COLUMN mail_conflicts INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE owners ADD COLUMN mail_calendars INTEGER NOT NULL DEFAULT 1;
  `,
  // 12 (issue 31): nothing. PostgreSQL's step 12 makes its shared rate limiter's table; SQLite counts in the
  // server's memory (rate-limits.ts), but keeps the step so both dialects' versions name the same schema.
  `
  SELECT 1;
  `,
  // 13 (issue 37, CONTRACT §17 "What each channel has seen"): each channel link's reads (the outbound URL with
  // exclude=S is S's link) and what was told about it. channel_links: one row per property and source with a
  // channel calendar, made on its first read or its first check; channel_reads: read times of the last 7 days
  // (the usual interval, reads in 7 days); channel_exposures: nights already reported exposed (once per night).
  // The owners' third mail setting, on by default.
  `
  CREATE TABLE channel_links (
    property_id TEXT NOT NULL REFERENCES properties(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    first_read_at TEXT,
    last_read_at TEXT,
    user_agent TEXT,
    stale_notified_at TEXT,
    PRIMARY KEY (property_id, source)
  );
  CREATE TABLE channel_reads (
    property_id TEXT NOT NULL REFERENCES properties(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    read_at TEXT NOT NULL
  );
  CREATE INDEX channel_reads_link ON channel_reads(property_id, source, read_at);
  CREATE TABLE channel_exposures (
    property_id TEXT NOT NULL REFERENCES properties(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    night TEXT NOT NULL,
    reported_at TEXT NOT NULL,
    PRIMARY KEY (property_id, source, night)
  );
  ALTER TABLE owners ADD COLUMN mail_channels INTEGER NOT NULL DEFAULT 1;
  `,
  // 14 (issue 38, CONTRACT §18 "Turnovers"): a property's check-in and check-out times (HH:MM in its zone),
  // the nights kept free around every booking, its cleaners' addresses (a JSON array of at most 5), and the
  // secrets of the cleaning feeds (one per property, one per owner) and of the owner's own calendar.
  `
  ALTER TABLE properties ADD COLUMN check_in_time TEXT NOT NULL DEFAULT '15:00';
  ALTER TABLE properties ADD COLUMN check_out_time TEXT NOT NULL DEFAULT '11:00';
  ALTER TABLE properties ADD COLUMN buffer_nights INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE properties ADD COLUMN cleaner_emails TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE properties ADD COLUMN cleaning_token TEXT;
  CREATE UNIQUE INDEX properties_cleaning_token ON properties(cleaning_token);
  ALTER TABLE owners ADD COLUMN cleaning_token TEXT;
  CREATE UNIQUE INDEX owners_cleaning_token ON owners(cleaning_token);
  ALTER TABLE owners ADD COLUMN calendar_token TEXT;
  CREATE UNIQUE INDEX owners_calendar_token ON owners(calendar_token);
  `,
  // 15 (issue 38, CONTRACT §18, the mails): "Email me about new, changed and cancelled bookings" (off by
  // default); a mail's own recipient (a cleaner; NULL: the owner); and the cleaners' unsubscribe tokens, stored
  // hashed, one per mail, each naming its property and address (used once: used_at).
  `
  ALTER TABLE owners ADD COLUMN mail_bookings INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE mail_outbox ADD COLUMN recipient TEXT;
  CREATE TABLE cleaner_unsubscribes (
    token_hash TEXT PRIMARY KEY,
    property_id TEXT NOT NULL REFERENCES properties(id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    created_at TEXT NOT NULL,
    used_at TEXT
  );
  CREATE INDEX cleaner_unsubscribes_property ON cleaner_unsubscribes(property_id);
  `,
  // 16 (CONTRACT §17, §10): when each periodic task (the channel check) is next due, so that of several
  // processes on one database one runs it per period. Transient, like the sync schedule: a copy starts afresh.
  `
  CREATE TABLE periodic_tasks (
    name TEXT PRIMARY KEY,
    next_at TEXT NOT NULL
  );
  `,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database up to the last of `steps` (default: calsync's schema), all pending steps in one
 * transaction. Throws, changing nothing, when the file was written by a newer calsync.
 */
export function migrate(db: Database.Database, steps: readonly string[] = MIGRATIONS): void {
  // IMMEDIATE takes the write lock before reading the version, so two processes opening a new file at once
  // (serve and a CLI command) run each step once. All pending steps are one transaction, so no other process
  // ever sees a version between the old and the new: a file is as the older calsync left it (and the copy
  // before the steps, open.ts, is of that) or as this one leaves it, never half-way, even if a step fails.
  const upgrade = db.transaction((): void => {
    const current = db.pragma("user_version", { simple: true }) as number;
    if (current > steps.length) {
      throw new Error(
        `database schema version ${current} is newer than this calsync understands (${steps.length}): upgrade calsync`,
      );
    }
    for (let version = current; version < steps.length; version++) db.exec(steps[version]!);
    if (current < steps.length) db.pragma(`user_version = ${steps.length}`);
  });
  // Up to date is the common case: answer it without taking the write lock.
  if (db.pragma("user_version", { simple: true }) === steps.length) return;
  upgrade.immediate();
}
