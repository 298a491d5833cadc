// The refresh before a direct stay's check (CONTRACT §14), for the server and the CLI's local mode alike: this
// property's channel calendars only, and of those only the ones not fetched in the last minute, under the owner's lease
// (a sync of the owner going anywhere is waited for and its answer used; two refreshes of one property in this process
// share one run, and refreshes of the owner's other properties run beside it under the same hold of the lease). The caller waits at most `timeoutMs`: a calendar that has not answered by then is checked as last
// stored. It is no sync anyone asked for: failures are not counted and no run is recorded (syncOwner's `refresh`).
import type { FetchLimiter } from "../engine/fetch-limiter.js";
import type { HostBackoffs } from "../engine/host-backoff.js";
import type { SyncStore } from "../engine/store-port.js";
import { syncOwner, type SyncOwnerOptions } from "../engine/sync.js";
import type { RefreshWarning } from "../resource-types.js";
import { runWithOwnerLease, type LeaseStore } from "../store/owner-lease.js";
import type { Calendar, Store, SyncLease } from "../store/types.js";
import type { SyncResponse } from "../types.js";

/** How long a direct stay's check waits for its refresh by default (`--refresh-timeout`). */
export const DEFAULT_REFRESH_TIMEOUT_MS = 8_000;

/** A calendar fetched this recently is not fetched again by a refresh. */
export const REFRESH_FRESH_MS = 60_000;

/** Options of `createPropertyRefresh`; a server passes its runner's limiter, backoffs and reader. */
export interface PropertyRefreshOptions {
  store: SyncStore & LeaseStore & Pick<Store, "listCalendars">;
  /** Let feed URLs reach loopback and private addresses. @default false */
  allowPrivateNetworks?: boolean;
  limiter?: FetchLimiter;
  backoffs?: HostBackoffs;
  /** Deadline of one feed fetch; a refresh's fetches never outlast `timeoutMs` either. @default the engine's (20000) */
  feedTimeoutMs?: number;
  /** Longest wait for the refresh, in milliseconds. @default DEFAULT_REFRESH_TIMEOUT_MS */
  timeoutMs?: number;
  /** Clock, for tests. @default () => new Date() */
  now?: () => Date;
  /** The owner's lease duration. @default the lease's */
  leaseMs?: number;
  /** Told when the refresh waits for a run of the owner in another process or instance. */
  onWait?: (ownerId: string, lease: SyncLease) => void;
  onFeedFetched?: SyncOwnerOptions["onFeedFetched"];
  read?: SyncOwnerOptions["read"];
  /** Cuts running refreshes short, as a server's close cuts its syncs (`SyncOwnerOptions.signal`). */
  signal?: AbortSignal;
}

/** Refreshes one property's channel calendars; resolves to the ones it could not bring up to date. */
export interface PropertyRefresh {
  (ownerId: string, propertyId: string): Promise<RefreshWarning[]>;
  /** Resolves once no refresh is running, including those whose callers stopped waiting (a server's close waits for them). */
  idle(): Promise<void>;
}

// What a refresh learnt of one calendar: brought up to date, or why not.
type Outcome = { ok: true } | { ok: false; message: string };

// One hold of an owner's lease by this process's refreshes (see createPropertyRefresh).
interface OwnerSession {
  /** Refreshes waiting to start under the lease. */
  pending: Array<() => Promise<void>>;
  /** Tells the session that a refresh was queued or ended. */
  wake?: () => void;
  /** The lease's answer: NOTHING_RUN after our refreshes, or the response of a sync of the owner it waited for. */
  done: Promise<SyncResponse | undefined>;
}

interface Flight {
  outcomes: Map<string, Outcome>;
  done: Promise<void>;
  /** Set once the run is over (a calendar without an outcome then never got one). */
  over: boolean;
}

/** Creates the refresh of a door; keep one per process, so that its single flight and its memory are shared. */
export function createPropertyRefresh(options: PropertyRefreshOptions): PropertyRefresh {
  const { store } = options;
  const clock = options.now ?? (() => new Date());
  const timeoutMs = options.timeoutMs ?? DEFAULT_REFRESH_TIMEOUT_MS;
  const flights = new Map<string, Flight>();
  // A failure in a refresh is not stored (it must not count), so this process remembers when it last tried.
  const failedAt = new Map<string, { at: number; message: string }>();

  // Refreshes of one owner's properties in this process share one hold of the owner's lease (a session): their
  // calendars are disjoint, so a slow channel on one property holds back no other property's refresh.
  const sessions = new Map<string, OwnerSession>();
  const openSession = (ownerId: string): OwnerSession => {
    const session: OwnerSession = { pending: [], done: undefined! };
    const lease = { store, leaseMs: options.leaseMs, onWait: (l: SyncLease) => options.onWait?.(ownerId, l) };
    session.done = runWithOwnerLease(lease, ownerId, "join", async () => {
      const active = new Set<Promise<void>>();
      for (;;) {
        for (const task of session.pending.splice(0)) {
          const running: Promise<void> = task().then(
            () => {},
            () => {},
          ).finally(() => {
            active.delete(running);
            session.wake?.();
          });
          active.add(running);
        }
        if (active.size === 0) {
          // Closed before the lease goes: a refresh asked for from now on opens a session of its own.
          sessions.delete(ownerId);
          return NOTHING_RUN;
        }
        await new Promise<void>((resolve) => (session.wake = resolve));
        session.wake = undefined;
      }
    }).finally(() => {
      if (sessions.get(ownerId) === session) sessions.delete(ownerId);
    });
    return session;
  };
  const enqueue = (ownerId: string, task: () => Promise<void>): OwnerSession => {
    let session = sessions.get(ownerId);
    if (!session) {
      session = openSession(ownerId);
      sessions.set(ownerId, session);
    }
    session.pending.push(task);
    session.wake?.();
    return session;
  };

  const start = (ownerId: string, propertyId: string): Flight => {
    const outcomes = new Map<string, Outcome>();
    let ran = false;
    let finished!: () => void;
    const taskDone = new Promise<void>((resolve) => (finished = resolve));
    const session = enqueue(ownerId, async () => {
      ran = true;
      try {
        await refreshCalendars(ownerId, propertyId, outcomes);
      } finally {
        finished();
      }
    });
    // Another process's sync of the owner answered for us: its entries for this property are the refresh.
    const joined = session.done.then(
      async (response) => {
        if (!ran && response) await outcomesOfJoined(store, propertyId, response, outcomes);
      },
      () => {},
    );
    const flight: Flight = {
      outcomes,
      over: false,
      done: Promise.race([taskDone, joined]).finally(() => {
        flight.over = true;
        flights.delete(propertyId);
      }),
    };
    flights.set(propertyId, flight);
    return flight;
  };

  // Fetches the property's calendars not fetched lately, recording what became of each in `outcomes`.
  const refreshCalendars = async (ownerId: string, propertyId: string, outcomes: Map<string, Outcome>): Promise<void> => {
    // Read under the lease: a refresh that waited for another one sees what that one fetched.
    const due = new Set<string>();
    for (const calendar of await store.listCalendars({ propertyId })) {
      const recent = recentOutcome(calendar, clock().getTime());
      if (recent) outcomes.set(calendar.id, recent);
      else due.add(calendar.id);
    }
    if (due.size === 0) return;
    await syncOwner({
      store,
      ownerId,
      trigger: "api",
      refresh: true,
      calendarIds: due,
      limiter: options.limiter,
      backoffs: options.backoffs,
      allowPrivateNetworks: options.allowPrivateNetworks ?? false,
      timeoutMs: Math.min(options.feedTimeoutMs ?? Number.POSITIVE_INFINITY, timeoutMs),
      now: options.now,
      onFeedFetched: options.onFeedFetched,
      read: options.read,
      signal: options.signal,
      onProgress: (progress) => {
        if (progress.ok) {
          outcomes.set(progress.calendarId, { ok: true });
          failedAt.delete(progress.calendarId);
          return;
        }
        const message = progress.error?.message ?? "the calendar could not be fetched";
        outcomes.set(progress.calendarId, { ok: false, message });
        failedAt.set(progress.calendarId, { at: clock().getTime(), message });
      },
    });
  };

  const recentOutcome = (calendar: Calendar, now: number): Outcome | undefined => {
    // `lastSyncedAt` is the last recorded attempt, failed or not.
    if (calendar.lastSyncedAt && now - Date.parse(calendar.lastSyncedAt) < REFRESH_FRESH_MS) {
      if (calendar.lastStatus !== "failed") return { ok: true };
      return { ok: false, message: `${calendar.lastErrorMessage ?? "the calendar failed"} (fetched less than a minute ago)` };
    }
    const failed = failedAt.get(calendar.id);
    if (failed && now - failed.at < REFRESH_FRESH_MS) return { ok: false, message: `${failed.message} (tried less than a minute ago)` };
    return undefined;
  };

  const refresh = async (ownerId: string, propertyId: string): Promise<RefreshWarning[]> => {
    const calendars = await store.listCalendars({ propertyId });
    if (calendars.length === 0) return [];
    const flight = flights.get(propertyId) ?? start(ownerId, propertyId);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([flight.done, late]);
    clearTimeout(timer);
    return calendars.flatMap((calendar): RefreshWarning[] => {
      const outcome = flight.outcomes.get(calendar.id);
      if (outcome?.ok) return [];
      const reason = outcome ? outcome.message : flight.over ? "the refresh could not run" : `no answer within ${timeoutMs} ms`;
      return [{ code: "calendar_not_refreshed", calendarId: calendar.id, message: `${reason}; checked as last stored` }];
    });
  };
  return Object.assign(refresh, {
    async idle() {
      while (flights.size > 0 || sessions.size > 0) {
        await Promise.all([...flights.values()].map((flight) => flight.done));
        await Promise.allSettled([...sessions.values()].map((session) => session.done));
      }
    },
  });
}

// A run of the whole owner lists its channel calendars by property, then creation: this property's, in order.
async function outcomesOfJoined(store: Pick<Store, "listCalendars">, propertyId: string, response: SyncResponse, outcomes: Map<string, Outcome>): Promise<void> {
  const calendars = await store.listCalendars({ propertyId });
  const entries = response.results.filter((entry) => entry.propertyId === propertyId);
  if (entries.length !== calendars.length || entries.some((entry, i) => entry.source !== calendars[i]!.source)) return;
  for (const [i, calendar] of calendars.entries()) {
    const entry = entries[i]!;
    outcomes.set(calendar.id, entry.ok ? { ok: true } : { ok: false, message: entry.result.error?.message ?? "the calendar failed" });
  }
}

// What a refresh with nothing to fetch answers to the lease (it is never recorded or read).
const NOTHING_RUN: SyncResponse = { ok: true, syncedCalendars: 0, propertiesChecked: 0, failed: 0, durationMs: 0, results: [] };
