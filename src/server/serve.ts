// startServer(): the app on a real port with listhen, the optional schedule, and a graceful close.
import { toNodeHandler, type H3 } from "h3/node";
import type { Listener } from "listhen";
import { FAILING_STREAK } from "../engine/store-port.js";
import type { SyncProgress } from "../engine/sync.js";
import { createParsePool } from "../engine/parse-pool.js";
import type { FetchLimiterOptions } from "../engine/fetch-limiter.js";
import { isPostgresUrl, openStore, resolveDatabasePath } from "../store/index.js";
import { DEFAULT_LEASE_MS } from "../store/owner-lease.js";
import type { Store } from "../store/types.js";
import type { SyncResponse } from "../types.js";
import { createServerLog, type ServerLog } from "./access-log.js";
import { createApp } from "./app.js";
import { isValidHost, listenExactly } from "./listen.js";
import { DEFAULT_API_RATE_LIMIT, DEFAULT_RATE_LIMIT, storeRateLimiter, type RateLimitPolicy, type TokenRateLimiter } from "./rate-limit.js";
import { assertInterval, startScheduler, type Scheduler } from "./scheduler.js";
import type { BackupSchedule } from "./backups.js";
import { createSyncRunner } from "./single-flight.js";
import type { PollHealthReport } from "./outbox/poll-outage.js";
import type { OutboxWorker } from "./outbox/pool.js";
import { assertMailSettings, startServeMail, type MailServeSettings } from "./mail/start.js";
import { startWebhookWorker, type DeliveryAttempt, type WebhookWorker, type WebhookWorkerOptions } from "./webhooks/worker.js";

/** Options of `startServer`. */
export interface ServeOptions {
  /** Database to serve; left open on close. @default opened from `dbPath` (and closed on close) */
  store?: Store;
  /** SQLite file or `postgres://` URL to open when `store` is left out. @default $CALSYNC_DB, else calsync.db in the user data directory */
  dbPath?: string;
  /** Interface to listen on. @default "127.0.0.1" */
  host?: string;
  /** TCP port; 0 picks a free one. A port in use is an error, never silently another port. @default 8787 */
  port?: number;
  /** Also sync every owner with calendars at this interval, in milliseconds. @default no schedule */
  syncEveryMs?: number;
  /** Let feed URLs reach loopback and private addresses. @default false */
  allowPrivateNetworks?: boolean;
  /** Believe `X-Forwarded-Proto`/`-Host`/`-For` of one reverse proxy in front (see `AppOptions.trustProxy`). @default false */
  trustProxy?: boolean;
  /** One JSON object per log line instead of text. @default false */
  jsonLogs?: boolean;
  /** Receives each log line (no trailing newline). @default writes to stderr */
  log?: (line: string) => void;
  /**
   * Sync requests allowed per token and window; `null` for no limit. Counted in the database on PostgreSQL
   * (so the limit holds across instances), in memory on SQLite. @default 6 a minute
   */
  rateLimit?: RateLimitPolicy | null;
  /** Requests to the resource routes allowed per token and window, apart from sync's; `null` for no limit. @default 120 a minute */
  apiRateLimit?: RateLimitPolicy | null;
  /** Serve Prometheus metrics at `GET /metrics`. @default false */
  metrics?: boolean;
  /**
   * The webhook delivery worker (CONTRACT §11): its settings (tests shorten the retry schedule), or `false`
   * for none (another process delivers, e.g. `calsync webhook deliver` from cron). @default a worker with the defaults
   */
  webhooks?: WebhookWorkerSettings | false;
  /**
   * Worker threads that parse feeds, so a big feed or a dense series never holds the event loop;
   * 0 parses on the event loop. @default the machine's cores but one, at least one (createParsePool)
   */
  parseThreads?: number;
  /** Longest a direct stay's check waits for its refresh of the property's channels, in milliseconds (CONTRACT §14). @default 8000 */
  refreshTimeoutMs?: number;
  /** Longest one feed may take to parse on a worker before it is stopped (parse_error), in milliseconds. @default 20000 */
  parseTimeoutMs?: number;
  /** Feeds fetched at once, by the process and by each owner's run, overall and per host. @default DEFAULT_FETCH_LIMITS (16, 6; 8, 2) */
  fetchLimits?: FetchLimiterOptions;
  /** Mail to owners (CONTRACT §16): where to send it from, and the mail worker's settings (tests shorten retries). @default no mail */
  mail?: MailServeSettings;
  /** How long a stop waits for running syncs and deliveries before it cuts them short, in milliseconds. @default 30000 */
  shutdownGraceMs?: number;
  /** Back up the SQLite database into `dir` at start and every `everyMs`, keeping the newest `keep` (CONTRACT §19). @default none */
  backups?: { dir: string; everyMs: number; keep: number };
  /** A channel link not read for longer than this is `stale` (CONTRACT §17), in milliseconds. @default 24 h */
  channelStaleAfterMs?: number;
}

export type { MailServeSettings } from "./mail/start.js";

/** What `ServeOptions.webhooks` may change of the delivery worker. */
export type WebhookWorkerSettings = Pick<WebhookWorkerOptions, "retryScheduleMs" | "timeoutMs" | "concurrency" | "now" | "random" | "pollReportEveryMs"> & {
  /** How often the outbox is looked at for due deliveries, in milliseconds (also right after every sync). @default 1000 */
  pollMs?: number;
};

/** A listening server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8787` (no trailing slash). */
  url: string;
  app: H3;
  /** Stops accepting, lets running syncs finish (at most `graceMs`, default `shutdownGraceMs` or 30 s), stops the schedule, closes an owned store. */
  close(options?: { graceMs?: number }): Promise<void>;
}

const DEFAULT_GRACE_MS = 30_000;
/** How long syncs cut short get to record their failures and give their leases back. */
const STOP_MS = 5_000;

/** Starts the API server and the owner dashboard, and resolves once it is listening. */
export async function startServer(options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 8787;
  if (!isValidHost(host)) throw new Error(`invalid host "${host}"`);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${port}: use 0 to 65535`);
  if (options.syncEveryMs !== undefined) assertInterval(options.syncEveryMs);
  if (options.mail) assertMailSettings(options.mail, options.trustProxy ?? false);

  const write = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const log = createServerLog({ json: options.jsonLogs, write });
  const pool =
    options.parseThreads === 0
      ? undefined
      : createParsePool({
          threads: options.parseThreads,
          timeoutMs: options.parseTimeoutMs,
          onError: (error) => log.event("error", "parse worker failed", { error: messageOf(error) }),
        });
  const ownsStore = !options.store;
  const store =
    options.store ??
    (await openStore(resolveDatabasePath(options.dbPath, process.env)).catch(async (error: unknown) => {
      await pool?.close();
      throw error;
    }));
  // `calsync db restore` refuses to swap a SQLite file this server holds.
  const releaseServeLock =
    store.path !== ":memory:" && !isPostgresUrl(store.path)
      ? (await import("../store/sqlite/serve-lock.js")).holdServeLock(store.path)
      : undefined;
  if (options.backups && !releaseServeLock) {
    await pool?.close();
    if (ownsStore) await store.close();
    throw new Error("backups are for a SQLite database: back PostgreSQL up with pg_dump");
  }
  let stopping = false;
  let rateLimiter: TokenRateLimiter | null;
  let apiRateLimiter: TokenRateLimiter | null;
  try {
    const rateLimit = options.rateLimit === undefined ? DEFAULT_RATE_LIMIT : options.rateLimit;
    rateLimiter = rateLimit && (await storeRateLimiter(store, rateLimit));
    const apiRateLimit = options.apiRateLimit === undefined ? DEFAULT_API_RATE_LIMIT : options.apiRateLimit;
    apiRateLimiter = apiRateLimit && (await storeRateLimiter(store, apiRateLimit, "api"));
  } catch (error) {
    await pool?.close();
    if (ownsStore) await store.close();
    releaseServeLock?.();
    throw error;
  }

  // prom-client (and its default process metrics) is loaded only when asked for.
  const metrics = options.metrics
    ? (await import("./metrics.js")).createServerMetrics({
        outboxDepth: () => store.countPendingWebhookDeliveries(),
        channelLinks: async () => {
          const { summarizeChannelLinks } = await import("../resources/channels.js");
          return summarizeChannelLinks(store, { now: new Date(), staleAfterMs: options.channelStaleAfterMs });
        },
      })
    : undefined;
  let webhooks: WebhookWorker | undefined;
  let mailer: OutboxWorker | undefined;
  let url = "";
  const runner = createSyncRunner({
    store,
    allowPrivateNetworks: options.allowPrivateNetworks,
    leaseMs: leaseMsFor(options.syncEveryMs),
    refreshTimeoutMs: options.refreshTimeoutMs,
    fetchLimits: options.fetchLimits,
    onWait: (ownerId, lease) => log.event("info", "waiting for a sync running elsewhere", { ownerId, runId: lease.runId, holder: lease.holder }),
    read: pool?.read,
    ...metrics?.syncHooks,
    // A run's events are in the outbox once it ends: send them now rather than at the next poll.
    onRunFinished: (run) => {
      metrics?.syncHooks.onRunFinished(run);
      webhooks?.wake();
      mailer?.wake();
    },
    onProgress: (ownerId, trigger, progress) => {
      logFailingCalendar(log, ownerId, trigger, progress);
      logWriteFault(log, ownerId, progress);
    },
  });
  const app = createApp({
    store,
    runner,
    metrics,
    rateLimiter,
    apiRateLimiter,
    allowPrivateNetworks: options.allowPrivateNetworks,
    trustProxy: options.trustProxy,
    stopping: () => stopping,
    channelStaleAfterMs: options.channelStaleAfterMs,
    mail: options.mail && { baseUrl: options.mail.baseUrl, serverUrl: () => url, wake: () => mailer?.wake() },
    logger: log.access,
    onError: (error, requestId) => log.event("error", "request failed", { requestId, error: messageOf(error) }),
  });

  let listener: Listener;
  try {
    listener = await listenExactly(toNodeHandler(app), host, port);
  } catch (error) {
    await pool?.close();
    if (ownsStore) await store.close();
    releaseServeLock?.();
    throw error;
  }
  // listhen's own URL drops port 80 but keeps the colon ("http://host:"), so build it from the address.
  url = `http://${host.includes(":") ? `[${host}]` : host}:${listener.address.port}`;
  log.event("info", "listening", { url });

  if (options.mail) mailer = startServeMail(options.mail, { store, log, serverUrl: url, onPollHealth: (report) => logPollHealth(log, report, "mail") });

  if (options.webhooks !== false) {
    webhooks = startWebhookWorker({
      ...options.webhooks,
      store,
      allowPrivateNetworks: options.allowPrivateNetworks,
      onAttempt: (attempt) => logDelivery(log, attempt),
      onPollHealth: (report) => logPollHealth(log, report, "webhook delivery"),
      onError: (error) => log.event("error", "webhook delivery failed", { error: messageOf(error) }),
    });
  }

  let backups: BackupSchedule | undefined;
  if (options.backups) {
    const { startBackups } = await import("./backups.js");
    backups = startBackups({
      ...options.backups,
      database: store.path,
      onBackup: (report, removed) => log.event("info", "backup written", { path: report.path, bytes: report.bytes, removed: removed.length }),
      onError: (error) => log.event("error", "backup failed", { error: messageOf(error) }),
    });
  }
  // What each channel has seen (CONTRACT §17): stale links and long exposures reported once, through the outbox.
  const { startChannelWatch } = await import("./channel-watch.js");
  const channelWatch = startChannelWatch({
    store,
    staleAfterMs: options.channelStaleAfterMs,
    onReported: () => {
      webhooks?.wake();
      mailer?.wake();
    },
    onError: (error) => log.event("error", "channel check failed", { error: messageOf(error) }),
  });

  let scheduler: Scheduler | undefined;
  if (options.syncEveryMs !== undefined) {
    scheduler = startScheduler({
      store,
      runner,
      everyMs: options.syncEveryMs,
      onRun: (ownerId, response) => logScheduledRun(log, ownerId, response),
      onError: (error, ownerId) => log.event("error", "scheduled sync failed", { ownerId, error: messageOf(error) }),
    });
    log.event("info", "schedule", { everyMs: options.syncEveryMs });
  }

  let closing: Promise<void> | undefined;
  const close = async (graceMs: number) => {
    const deadline = Date.now() + graceMs;
    stopping = true;
    scheduler?.stop();
    await channelWatch.stop();
    log.event("info", "stopping", { runningSyncs: runner.active, graceMs });
    // Stop accepting; idle keep-alive connections close now, busy ones once their answer is sent, and a request
    // that still comes on one is answered 503 (app.ts) with the connection closed.
    const httpClosed = listener.close();
    const finished = await within(Promise.all([httpClosed, runner.idle()]), graceMs);
    if (!finished) {
      log.event("warn", "shutdown grace period over; stopping running syncs", { runningSyncs: runner.active });
      runner.abort();
      listener.server.closeAllConnections();
      await httpClosed;
      // Each calendar is one transaction: what is cut short writes nothing, and the owners' leases are given back.
      await within(runner.idle(), STOP_MS);
    }
    // Deliveries in flight get what is left of the grace; those cut short do not count and stay due for the next start.
    const left = Math.max(0, deadline - Date.now());
    await Promise.all([webhooks?.stop({ graceMs: left }), mailer?.stop({ graceMs: left }), backups?.stop()]);
    // A parse still running past the grace period ends as parse_error: its calendar writes nothing.
    await pool?.close();
    // Each calendar is one transaction, so closing now cannot leave one half-written.
    if (ownsStore) await store.close();
    releaseServeLock?.();
    log.event("info", "stopped");
  };
  return {
    url,
    app,
    close: (closeOptions = {}) => (closing ??= close(closeOptions.graceMs ?? options.shutdownGraceMs ?? DEFAULT_GRACE_MS)),
  };
}

/**
 * An owner's lease: short enough that an instance killed mid-run keeps that owner from its next scheduled
 * sync for at most one period (CONTRACT §10), long enough that a busy event loop renews it in time.
 */
export function leaseMsFor(syncEveryMs: number | undefined): number {
  return syncEveryMs === undefined ? DEFAULT_LEASE_MS : Math.min(Math.max(syncEveryMs, 1_000), DEFAULT_LEASE_MS);
}

async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// Once per streak, the run that makes it FAILING_STREAK long: later failures of the same streak stay quiet.
function logFailingCalendar(log: ServerLog, ownerId: string, trigger: string, progress: SyncProgress): void {
  // A throttled calendar keeps its streak without a new failure: it was told of when the streak reached 3.
  if (progress.consecutiveFailures !== FAILING_STREAK || progress.error?.code === "throttled") return;
  log.event("warn", "calendar failing", {
    ownerId,
    calendarId: progress.calendarId,
    source: progress.source,
    consecutiveFailures: progress.consecutiveFailures,
    error: progress.error?.code ?? "unknown",
    trigger,
  });
}

// The API answer says only that the calendar was not written; the operator reads here what the database said.
function logWriteFault(log: ServerLog, ownerId: string, progress: SyncProgress): void {
  if (progress.error?.code !== "write_failed") return;
  log.event("error", "calendar not written", {
    ownerId,
    calendarId: progress.calendarId,
    source: progress.source,
    cause: progress.writeFault ?? progress.error.message,
  });
}

// One line per attempt, by ids only: a webhook URL may hold a secret of the receiver's.
function logDelivery(log: ServerLog, attempt: DeliveryAttempt): void {
  const { eventId, endpointId, attempt: number, status, error, nextAttemptAt } = attempt;
  if (attempt.delivered) {
    log.event("info", "webhook delivered", { eventId, endpointId, attempt: number, status: status ?? 0 });
    return;
  }
  if (attempt.interrupted) {
    log.event("info", "webhook attempt interrupted; made again at the next start", { eventId, endpointId, attempt: number });
    return;
  }
  log.event(nextAttemptAt ? "warn" : "error", nextAttemptAt ? "webhook attempt failed" : "webhook delivery failed for good", {
    eventId,
    endpointId,
    attempt: number,
    ...(status === null ? {} : { status }),
    error: error ?? "unknown",
    ...(nextAttemptAt ? { retryAt: nextAttemptAt.toISOString() } : {}),
  });
}

// A worker polls every second: while the database is down, a line when it starts, one a minute, one when it ends.
function logPollHealth(log: ServerLog, report: PollHealthReport, what: "webhook delivery" | "mail"): void {
  if (report.state === "failing") {
    log.event("error", `${what} paused: cannot read the outbox`, { error: messageOf(report.error) });
  } else if (report.state === "still-failing") {
    const { failedPolls, sinceMs } = report;
    log.event("error", `${what} still paused: cannot read the outbox`, { error: messageOf(report.error), failedPolls, sinceMs });
  } else {
    log.event("info", `${what} resumed`, { failedPolls: report.failedPolls, pausedMs: report.sinceMs });
  }
}

// Nobody reads a scheduled sync's response, so what it found (failures, double bookings) goes to the log.
function logScheduledRun(log: ServerLog, ownerId: string, response: SyncResponse): void {
  const conflicts = response.conflicts ?? [];
  log.event(response.ok && conflicts.length === 0 ? "info" : "warn", "scheduled sync", {
    ownerId,
    ok: response.ok,
    syncedCalendars: response.syncedCalendars,
    failed: response.failed,
    conflicts: conflicts.length,
    durationMs: response.durationMs,
  });
  for (const { propertyId, from, to, reservations } of conflicts) {
    log.event("warn", "double booking", { ownerId, propertyId, from, to, sources: reservations.map((r) => r.source).join(",") });
  }
}
