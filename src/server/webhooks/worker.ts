// The delivery worker (CONTRACT §11): claims due deliveries from the store's outbox, sends them a few at a
// time (never two to one endpoint at once), and records each attempt with its next retry. `calsync serve`
// keeps one running; `calsync webhook deliver` drains what is due once. It never calls the sync engine.
import { randomUUID } from "node:crypto";
import type { Store } from "../../store/types.js";
import { trackPollOutage, type PollHealthReport } from "./poll-outage.js";
import { DEFAULT_RETRY_SCHEDULE_MS, nextAttemptAt } from "./retry-schedule.js";
import { sendWebhook } from "./send.js";

/** The store methods delivery needs. */
export type DeliveryStore = Pick<Store, "claimWebhookDeliveries" | "finishWebhookDelivery" | "releaseWebhookDelivery" | "pruneWebhookEvents">;

/** Options of `deliverDueWebhooks` and `startWebhookWorker`. */
export interface WebhookDeliveryOptions {
  store: DeliveryStore;
  /** Let webhook URLs reach loopback and private addresses. @default false */
  allowPrivateNetworks?: boolean;
  /** Attempts in flight at once, each to a different endpoint. @default 8 */
  concurrency?: number;
  /** Deadline of one attempt, in milliseconds. @default 10000 */
  timeoutMs?: number;
  /** Waits after each failed attempt, in milliseconds; when spent, the delivery fails. @default DEFAULT_RETRY_SCHEDULE_MS (9 attempts over ≥ 24 h) */
  retryScheduleMs?: readonly number[];
  /** Clock, for tests. @default () => new Date() */
  now?: () => Date;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
  /** Called after every attempt, e.g. for the server's log. */
  onAttempt?: (attempt: DeliveryAttempt) => void;
  /** Called when the store fails while recording an attempt, or while claiming unless `onPollHealth` is given; the worker carries on. */
  onError?: (error: unknown) => void;
}

/** Options of `startWebhookWorker`. */
export interface WebhookWorkerOptions extends WebhookDeliveryOptions {
  /** How often the outbox is looked at for due deliveries, in milliseconds. @default 1000 */
  pollMs?: number;
  /**
   * Called when polling the outbox starts failing (e.g. the database is down), at most every
   * `pollReportEveryMs` while it keeps failing, and once it succeeds again; instead of `onError` for each failed poll.
   */
  onPollHealth?: (report: PollHealthReport) => void;
  /** Least time between two reports of one run of failing polls, in milliseconds. @default 60000 */
  pollReportEveryMs?: number;
}

/** One attempt as `onAttempt` reports it. */
export interface DeliveryAttempt {
  eventId: string;
  endpointId: string;
  /** 1 for the first attempt. */
  attempt: number;
  delivered: boolean;
  /** Cut short by `stop()`: it does not count, and the delivery is made again (with this attempt's number). */
  interrupted: boolean;
  status: number | null;
  error: string | null;
  /** When it is tried again (for an interrupted attempt: it stays due); null once delivered or failed for good. */
  nextAttemptAt: Date | null;
}

/** What one drain did. */
export interface DeliverySummary {
  attempted: number;
  delivered: number;
  /** Failed attempts with a retry scheduled. */
  retrying: number;
  /** Deliveries that used their last attempt. */
  failed: number;
}

/** A running worker. */
export interface WebhookWorker {
  /** Looks for due deliveries now (e.g. right after a sync wrote events). */
  wake(): void;
  /** Stops claiming, interrupts attempts in flight (they do not count and stay due) and waits for them to be given back. */
  stop(): Promise<void>;
}

/** Keeps events a month after their last delivery ended, for `calsync webhook deliveries`. */
const KEEP_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
/** A claim outlives the attempt's deadline by this much, so only a dead worker's claim ever runs out. */
const CLAIM_MARGIN_MS = 30_000;

interface Pool {
  /** Claims what is due up to the free slots and starts sending; resolves to how many it claimed, null when no slot was free to ask for. */
  fill(): Promise<number | null>;
  /** Resolves once no attempt is in flight. */
  idle(): Promise<void>;
  /** Resolves once any attempt in flight ends; false at once when none is. */
  next(): Promise<boolean>;
  /** Attempts ended so far (recorded or not). */
  readonly ended: number;
  summary: DeliverySummary;
  abort(): void;
}

// `settled` runs after each attempt is recorded, to hand its slot (and its endpoint) on.
function createPool(options: WebhookDeliveryOptions, settled: () => void = () => {}): Pool {
  const worker = `worker_${randomUUID()}`;
  const clock = options.now ?? (() => new Date());
  const random = options.random ?? Math.random;
  const concurrency = options.concurrency ?? 8;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const schedule = options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
  const stopping = new AbortController();
  const inFlight = new Map<string, Promise<void>>();
  const summary: DeliverySummary = { attempted: 0, delivered: 0, retrying: 0, failed: 0 };
  let ended = 0;

  const attempt = async (delivery: Awaited<ReturnType<DeliveryStore["claimWebhookDeliveries"]>>[number]) => {
    const at = clock();
    const result = await sendWebhook(delivery, { timeoutMs, allowPrivateNetworks: options.allowPrivateNetworks ?? false, now: at, signal: stopping.signal });
    const attempts = delivery.attempts + 1;
    const { eventId, endpointId } = delivery;
    // Stopping is not the receiver's failure: an attempt cut short (a last one included) is made again.
    if (!result.delivered && result.interrupted) {
      await options.store.releaseWebhookDelivery({ eventId, endpointId, worker, at, error: result.error });
      summary.attempted++;
      summary.retrying++;
      options.onAttempt?.({ eventId, endpointId, attempt: attempts, delivered: false, interrupted: true, status: null, error: result.error, nextAttemptAt: at });
      return;
    }
    const next = result.delivered ? null : nextAttemptAt(attempts, clock(), schedule, random);
    const error = result.delivered ? null : result.error;
    await options.store.finishWebhookDelivery({ eventId, endpointId, worker, at, delivered: result.delivered, status: result.status, error, nextAttemptAt: next });
    summary.attempted++;
    if (result.delivered) summary.delivered++;
    else if (next) summary.retrying++;
    else summary.failed++;
    options.onAttempt?.({ eventId, endpointId, attempt: attempts, delivered: result.delivered, interrupted: false, status: result.status, error, nextAttemptAt: next });
  };

  const pool: Pool = {
    summary,
    get ended() {
      return ended;
    },
    async fill() {
      const free = concurrency - inFlight.size;
      if (free <= 0 || stopping.signal.aborted) return null;
      const now = clock();
      const claimed = await options.store.claimWebhookDeliveries({
        worker,
        now,
        until: new Date(now.getTime() + timeoutMs + CLAIM_MARGIN_MS),
        limit: free,
        busyEndpoints: [...inFlight.keys()],
      });
      for (const delivery of claimed) {
        const running = attempt(delivery)
          .catch((error: unknown) => options.onError?.(error))
          .finally(() => {
            inFlight.delete(delivery.endpointId);
            ended++;
            settled();
          });
        inFlight.set(delivery.endpointId, running);
      }
      return claimed.length;
    },
    async idle() {
      while (inFlight.size > 0) await Promise.all([...inFlight.values()]);
    },
    async next() {
      if (inFlight.size === 0) return false;
      await Promise.race(inFlight.values());
      return true;
    },
    abort: () => stopping.abort(),
  };
  return pool;
}

/** Sends every delivery that is due now and resolves once each has been attempted (for cron: `calsync webhook deliver`). */
export async function deliverDueWebhooks(options: WebhookDeliveryOptions): Promise<DeliverySummary> {
  const pool = createPool(options);
  // Claim what is due; when nothing more can be claimed, wait for an attempt to end (its endpoint is then
  // free for the next of its deliveries); done when nothing is claimable and nothing is in flight. A claim
  // takes a round trip on PostgreSQL: an attempt that ended meanwhile freed its endpoint after the claim looked.
  for (;;) {
    const ended = pool.ended;
    if (((await pool.fill()) ?? 0) > 0 || (await pool.next()) || pool.ended !== ended) continue;
    break;
  }
  await options.store.pruneWebhookEvents(new Date((options.now?.() ?? new Date()).getTime() - KEEP_MS));
  return pool.summary;
}

/** Starts a worker that looks for due deliveries every `pollMs` and whenever `wake()` is called. */
export function startWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  const pool = createPool(options, () => wake());
  const clock = options.now ?? (() => new Date());
  const outage = trackPollOutage(options.pollReportEveryMs ?? 60_000, () => clock().getTime());
  const report = (health: PollHealthReport | undefined) => health && options.onPollHealth?.(health);
  let filling: Promise<void> | undefined;
  let again = false;
  let prunedAt = 0;
  let stopped = false;

  // One fill at a time; a wake-up during one runs another right after it, so no event waits for the next poll.
  const run = async () => {
    do {
      again = false;
      try {
        const now = clock().getTime();
        if (now - prunedAt >= PRUNE_EVERY_MS) {
          prunedAt = now;
          await options.store.pruneWebhookEvents(new Date(now - KEEP_MS));
        }
        // A poll that asked nothing (every slot busy) says nothing of the database.
        if ((await pool.fill()) !== null) report(outage.succeeded());
      } catch (error) {
        if (options.onPollHealth) report(outage.failed(error));
        else options.onError?.(error);
      }
    } while (again && !stopped);
  };
  const wake = () => {
    if (stopped) return;
    if (filling) {
      again = true;
      return;
    }
    filling = run().finally(() => (filling = undefined));
  };
  const timer = setInterval(wake, options.pollMs ?? 1000);
  timer.unref();
  wake();
  return {
    wake,
    async stop() {
      stopped = true;
      clearInterval(timer);
      pool.abort();
      await filling;
      await pool.idle();
    },
  };
}
