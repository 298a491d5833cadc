// The delivery loop every outbox shares (CONTRACT §11 webhooks, §16 mails): claim what is due a few at a time
// (never two of one lane at once), send each, and record the attempt with its next retry. What is claimed,
// how it is sent and where attempts are recorded is the queue's; the claims, retries, backoff, stopping and
// polling are here, once.
import { randomUUID } from "node:crypto";
import { trackPollOutage, type PollHealthReport } from "./poll-outage.js";
import { DEFAULT_RETRY_SCHEDULE_MS, nextAttemptAt } from "./retry-schedule.js";

/** How one attempt went; `interrupted` when the worker's stop cut it short (it does not count). */
export type OutboxSendResult =
  | { delivered: true; status: number | null }
  | { delivered: false; status: number | null; error: string; interrupted?: true };

/** One outbox as the loop drives it. */
export interface OutboxQueue<Item> {
  /** Claims due items for `worker` until `until`, at most `limit`, none of `busyLanes`. */
  claim(input: { worker: string; now: Date; until: Date; limit: number; busyLanes: readonly string[] }): Promise<Item[]>;
  /** What may not receive two attempts at once (a webhook endpoint; a mail is its own lane). */
  laneOf(item: Item): string;
  /** Attempts made before this one. */
  attemptsOf(item: Item): number;
  /** Makes one attempt; never throws. */
  send(item: Item, context: { now: Date; signal: AbortSignal }): Promise<OutboxSendResult>;
  /** Records an attempt; `nextAttemptAt` null after a success or the last attempt. */
  finish(item: Item, outcome: { worker: string; at: Date; delivered: boolean; status: number | null; error: string | null; nextAttemptAt: Date | null }): Promise<void>;
  /** Gives back an interrupted attempt: it does not count and the item stays due. */
  release(item: Item, outcome: { worker: string; at: Date; error: string }): Promise<void>;
  /** Housekeeping of finished items created before `before`. */
  prune(before: Date, now: Date): Promise<unknown>;
}

/** Settings of the loop. */
export interface OutboxOptions {
  /** Attempts in flight at once, each in a different lane. @default 8 */
  concurrency?: number;
  /** Deadline of one attempt, in milliseconds; a claim outlives it by 30 s. @default 10000 */
  timeoutMs?: number;
  /** Waits after each failed attempt, in milliseconds; when spent, the item fails. @default DEFAULT_RETRY_SCHEDULE_MS (9 attempts over ≥ 24 h) */
  retryScheduleMs?: readonly number[];
  /** Clock, for tests. @default () => new Date() */
  now?: () => Date;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
  /** Called when the store fails while recording an attempt, or while claiming unless `onPollHealth` is given. */
  onError?: (error: unknown) => void;
}

/** Settings of a running loop. */
export interface OutboxWorkerOptions extends OutboxOptions {
  /** How often the outbox is looked at, in milliseconds. @default 1000 */
  pollMs?: number;
  /** Reports of failing polls (first, reminders every `pollReportEveryMs`, recovery), instead of `onError` for each. */
  onPollHealth?: (report: PollHealthReport) => void;
  /** @default 60000 */
  pollReportEveryMs?: number;
}

/** One attempt, as the loop reports it. */
export interface OutboxAttempt<Item> {
  item: Item;
  /** 1 for the first attempt. */
  attempt: number;
  delivered: boolean;
  interrupted: boolean;
  status: number | null;
  error: string | null;
  nextAttemptAt: Date | null;
}

/** What one drain did. */
export interface DeliverySummary {
  attempted: number;
  delivered: number;
  /** Failed attempts with a retry scheduled. */
  retrying: number;
  /** Items that used their last attempt. */
  failed: number;
}

/** A running loop. */
export interface OutboxWorker {
  /** Looks for due items now (e.g. right after a sync wrote some). */
  wake(): void;
  /**
   * Stops claiming; lets attempts in flight finish for up to `graceMs` (default 0), then interrupts the rest
   * (they do not count and stay due) and waits for them to be given back.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/** Keeps finished items a month, for listings. */
const KEEP_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
/** A claim outlives the attempt's deadline by this much, so only a dead worker's claim ever runs out. */
const CLAIM_MARGIN_MS = 30_000;

interface Pool {
  fill(): Promise<number | null>;
  idle(): Promise<void>;
  next(): Promise<boolean>;
  readonly ended: number;
  summary: DeliverySummary;
  abort(): void;
}

// `settled` runs after each attempt is recorded, to hand its slot (and its lane) on.
function createPool<Item>(queue: OutboxQueue<Item>, options: OutboxOptions, onAttempt: (attempt: OutboxAttempt<Item>) => void, settled: () => void = () => {}): Pool {
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

  const attempt = async (item: Item) => {
    const at = clock();
    const result = await queue.send(item, { now: at, signal: stopping.signal });
    const attempts = queue.attemptsOf(item) + 1;
    // Stopping is not the receiver's failure: an attempt cut short (a last one included) is made again.
    if (!result.delivered && result.interrupted) {
      await queue.release(item, { worker, at, error: result.error });
      summary.attempted++;
      summary.retrying++;
      onAttempt({ item, attempt: attempts, delivered: false, interrupted: true, status: null, error: result.error, nextAttemptAt: at });
      return;
    }
    const next = result.delivered ? null : nextAttemptAt(attempts, clock(), schedule, random);
    const error = result.delivered ? null : result.error;
    await queue.finish(item, { worker, at, delivered: result.delivered, status: result.status, error, nextAttemptAt: next });
    summary.attempted++;
    if (result.delivered) summary.delivered++;
    else if (next) summary.retrying++;
    else summary.failed++;
    onAttempt({ item, attempt: attempts, delivered: result.delivered, interrupted: false, status: result.status, error, nextAttemptAt: next });
  };

  return {
    summary,
    get ended() {
      return ended;
    },
    async fill() {
      const free = concurrency - inFlight.size;
      if (free <= 0 || stopping.signal.aborted) return null;
      const now = clock();
      const claimed = await queue.claim({ worker, now, until: new Date(now.getTime() + timeoutMs + CLAIM_MARGIN_MS), limit: free, busyLanes: [...inFlight.keys()] });
      for (const item of claimed) {
        const lane = queue.laneOf(item);
        const running = attempt(item)
          .catch((error: unknown) => options.onError?.(error))
          .finally(() => {
            inFlight.delete(lane);
            ended++;
            settled();
          });
        inFlight.set(lane, running);
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
}

/** Sends everything due now and resolves once each has been attempted (for cron). */
export async function drainOutbox<Item>(queue: OutboxQueue<Item>, options: OutboxOptions, onAttempt: (attempt: OutboxAttempt<Item>) => void = () => {}): Promise<DeliverySummary> {
  const pool = createPool(queue, options, onAttempt);
  // Claim what is due; when nothing more can be claimed, wait for an attempt to end (its lane is then free for
  // the next of its items); done when nothing is claimable and nothing is in flight. A claim takes a round trip
  // on PostgreSQL: an attempt that ended meanwhile freed its lane after the claim looked.
  for (;;) {
    const ended = pool.ended;
    if (((await pool.fill()) ?? 0) > 0 || (await pool.next()) || pool.ended !== ended) continue;
    break;
  }
  const now = options.now?.() ?? new Date();
  await queue.prune(new Date(now.getTime() - KEEP_MS), now);
  return pool.summary;
}

/** Starts a loop that looks for due items every `pollMs` and whenever `wake()` is called. */
export function startOutboxWorker<Item>(queue: OutboxQueue<Item>, options: OutboxWorkerOptions, onAttempt: (attempt: OutboxAttempt<Item>) => void = () => {}): OutboxWorker {
  const pool = createPool(queue, options, onAttempt, () => wake());
  const clock = options.now ?? (() => new Date());
  const outage = trackPollOutage(options.pollReportEveryMs ?? 60_000, () => clock().getTime());
  const report = (health: PollHealthReport | undefined) => health && options.onPollHealth?.(health);
  let filling: Promise<void> | undefined;
  let again = false;
  let prunedAt = 0;
  let stopped = false;

  // One fill at a time; a wake-up during one runs another right after it, so nothing waits for the next poll.
  const run = async () => {
    do {
      again = false;
      try {
        const now = clock();
        if (now.getTime() - prunedAt >= PRUNE_EVERY_MS) {
          prunedAt = now.getTime();
          await queue.prune(new Date(now.getTime() - KEEP_MS), now);
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
    async stop({ graceMs = 0 } = {}) {
      stopped = true;
      clearInterval(timer);
      if (graceMs > 0) {
        let timeout: NodeJS.Timeout | undefined;
        const drained = (async () => {
          await filling;
          await pool.idle();
        })();
        await Promise.race([drained, new Promise((resolve) => (timeout = setTimeout(resolve, graceMs)))]);
        clearTimeout(timeout);
      }
      pool.abort();
      await filling;
      await pool.idle();
    },
  };
}
