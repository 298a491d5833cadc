// openSqliteStore(): one SQLite file, tuned and migrated, behind the Store interface.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { Database, nativeBinding } from "./driver.js";
import { copyQueries, type CopyQueries } from "./copy.js";
import { createConnectionLock, lockedMethods, type ConnectionLock } from "./connection-lock.js";
import { lazyMethods, type GroupLoader } from "./lazy-queries.js";
import { migrate, SCHEMA_VERSION } from "./migrations.js";
import { rateLimitQueries, type RateLimitQueries } from "./rate-limits.js";
import type { Store } from "../types.js";

/**
 * Sets WAL mode. Turning a new file to WAL takes its exclusive lock, and when another process opening the same
 * new file holds a lock this one would wait behind, SQLite answers BUSY at once instead of calling the busy
 * handler (it avoids a deadlock): seen once in 36 races of six processes on Node 24. Tried again for 5 s.
 */
function turnToWal(db: InstanceType<typeof Database>): void {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== "SQLITE_BUSY" || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/** Opens the SQLite file at `path` (`":memory:"` works too), creating its directories and schema as needed. */
export function openSqliteStore(path: string): Store {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  // `timeout` is SQLite's busy timeout, set before any statement: every statement below waits for a CLI
  // or server holding the lock instead of failing.
  const db = new Database(path, nativeBinding ? { timeout: 5000, nativeBinding } : { timeout: 5000 });
  try {
    turnToWal(db);
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    copyBeforeSchemaSteps(db, path);
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  const ping = db.prepare<[], { ok: number }>("SELECT 1 AS ok");
  const lock = createConnectionLock();

  const store: Store = {
    path,
    ...lazyMethods(loaders(db, lock), GROUP_OF),
    ...copyQueries(db),
    ...rateLimitQueries(),
    ping: async () => db.open && ping.get()?.ok === 1,
  };
  // A big write keeps its transaction open across event-loop turns: every other call waits for it, but
  // /healthz's ping may read inside it (it only asks whether the file answers). `exportRows` answers an
  // iterable, not a promise: only `db copy` calls it, with nothing else on the connection.
  return lockedMethods(store, lock, ["ping", "exportRows"]);
}

/** `2026-11-28T04-05-06Z`: a time that sorts and is a valid file name everywhere. */
export function fileStamp(at: Date): string {
  return at.toISOString().replace(/\.\d+Z$/, "Z").replaceAll(":", "-");
}

/**
 * Before the first schema step on an existing file, a copy of it beside it (`<file>.schema-<version>-<time>-<pid>.bak`):
 * an upgrade that goes wrong, or a downgrade wanted after it, starts from that (CONTRACT §19).
 */
function copyBeforeSchemaSteps(db: Database, path: string): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (path === ":memory:" || path === "" || version === 0 || version >= SCHEMA_VERSION) return;
  // Several processes may open an old file at once: each copies to a name of its own, none onto another's.
  db.prepare("VACUUM INTO ?").run(`${path}.schema-${version}-${fileStamp(new Date())}-${process.pid}.bak`);
}

/** The query groups of one database, each a module of its own (see lazy-queries.ts). */
function loaders(db: Database, lock: ConnectionLock): Record<Group, GroupLoader<Store>> {
  return {
    owners: async () => (await import("./owners.js")).ownerQueries(db),
    feedSecrets: async () => (await import("./feed-secrets.js")).feedSecretQueries(db),
    tokens: async () => (await import("./tokens.js")).tokenQueries(db),
    properties: async () => (await import("./properties.js")).propertyQueries(db),
    calendars: async () => (await import("./calendars.js")).calendarQueries(db),
    reservations: async () => (await import("./reservations.js")).reservationQueries(db),
    outboundFetches: async () => (await import("./outbound-fetches.js")).outboundFetchQueries(db),
    channelLinks: async () => (await import("./channel-links.js")).channelLinkQueries(db),
    syncPort: async () => (await import("./sync-port.js")).syncPortQueries(db, lock),
    syncRuns: async () => (await import("./sync-runs.js")).syncRunQueries(db),
    sessions: async () => (await import("./sessions.js")).sessionQueries(db),
    webhooks: async () => (await import("./webhooks.js")).webhookQueries(db),
    mail: async () => (await import("./mail.js")).mailQueries(db),
    syncLeases: async () => (await import("./sync-leases.js")).syncLeaseQueries(db),
    periodicTasks: async () => (await import("./periodic-tasks.js")).periodicTaskQueries(db),
    hostBackoffs: async () => (await import("./host-backoffs.js")).hostBackoffQueries(db),
    directStays: async () => (await import("./direct-stays.js")).directStayQueries(db, lock),
    // Nothing to load: `close` is queued with the other methods so that a call made before it, whose group
    // is still loading, runs first instead of finding the connection closed.
    connection: async () => ({
      async close() {
        if (db.open) db.close();
      },
    }),
  };
}

type Group =
  | "owners" | "tokens" | "properties" | "calendars" | "reservations" | "outboundFetches" | "channelLinks" | "syncPort" | "syncRuns" | "sessions"
  | "webhooks" | "mail" | "syncLeases" | "periodicTasks" | "hostBackoffs" | "directStays" | "connection" | "feedSecrets";

/** The group of every method of the store (the compiler checks that none is missing). */
const GROUP_OF = {
  createOwner: "owners",
  listOwners: "owners",
  getOwner: "owners",
  setOwnerEmail: "owners",
  findOwnerByEmail: "owners",
  ownerPasswordHash: "owners",
  setOwnerPassword: "owners",
  createToken: "tokens",
  listTokens: "tokens",
  findTokenByHash: "tokens",
  revokeToken: "tokens",
  touchToken: "tokens",
  createProperty: "properties",
  updateProperty: "properties",
  listProperties: "properties",
  propertiesAfter: "properties",
  getProperty: "properties",
  removeProperty: "properties",
  setPropertyFeedToken: "properties",
  getPropertyByFeedToken: "properties",
  propertyFeedToken: "properties",
  createCalendar: "calendars",
  listCalendars: "calendars",
  getCalendar: "calendars",
  removeCalendar: "calendars",
  listReservations: "reservations",
  propertyFeedReservations: "reservations",
  availabilityReservations: "reservations",
  turnoverBookings: "reservations",
  feedSecret: "feedSecrets",
  findFeedSecret: "feedSecrets",
  ownerCalendarReservations: "feedSecrets",
  recordOutboundFetch: "outboundFetches",
  propertyOutboundFetches: "outboundFetches",
  channelInputs: "channelLinks",
  recordChannelNotices: "channelLinks",
  ownerCalendars: "syncPort",
  calendarReservations: "syncPort",
  applyCalendarSync: "syncPort",
  recordUnchangedSyncs: "syncPort",
  recordCalendarFailure: "syncPort",
  recordCalendarFailures: "syncPort",
  propertyActiveBookings: "syncPort",
  recordSyncRun: "syncRuns",
  listSyncRuns: "syncRuns",
  syncRunResponse: "syncRuns",
  acquireSyncLease: "syncLeases",
  renewSyncLease: "syncLeases",
  releaseSyncLease: "syncLeases",
  syncLease: "syncLeases",
  claimScheduledSyncs: "syncLeases",
  claimPeriodicTask: "periodicTasks",
  schedulePeriodicTask: "periodicTasks",
  hostBackoffs: "hostBackoffs",
  holdHost: "hostBackoffs",
  createInvite: "sessions",
  findInvite: "sessions",
  consumeInvite: "sessions",
  createSession: "sessions",
  findSession: "sessions",
  touchSession: "sessions",
  deleteSession: "sessions",
  deleteIdleSessions: "sessions",
  reserveSignInAttempt: "sessions",
  releaseSignInAttempt: "sessions",
  signInFailures: "sessions",
  clearSignInFailures: "sessions",
  createWebhookEndpoint: "webhooks",
  listWebhookEndpoints: "webhooks",
  getWebhookEndpoint: "webhooks",
  removeWebhookEndpoint: "webhooks",
  listWebhookDeliveries: "webhooks",
  claimWebhookDeliveries: "webhooks",
  finishWebhookDelivery: "webhooks",
  releaseWebhookDelivery: "webhooks",
  countPendingWebhookDeliveries: "webhooks",
  pruneWebhookEvents: "webhooks",
  getReservation: "directStays",
  reservationsPage: "directStays",
  findIdempotencyRecord: "directStays",
  writeDirectStay: "directStays",
  claimMails: "mail",
  finishMail: "mail",
  releaseMail: "mail",
  pruneMails: "mail",
  listMails: "mail",
  ownerNotifications: "mail",
  setOwnerNotifications: "mail",
  unsubscribeCleaner: "mail",
  close: "connection",
} as const satisfies Record<Exclude<keyof Store, "path" | "ping" | keyof CopyQueries | keyof RateLimitQueries>, Group>;
