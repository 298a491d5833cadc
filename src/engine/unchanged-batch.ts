// The bookkeeping of calendars that changed no reservation, gathered and written many to a transaction: an
// unchanged calendar (a 304 or the same body) and a failed one. Most calendars of a round are unchanged, a
// channel's outage fails many at once, and one commit each was most of what such a calendar cost.
import type { CalendarStreak, SyncStore, UnchangedSync } from "./store-port.js";
import type { CalendarFailure } from "./model.js";

/** Calendars written in one transaction at most. */
export const UNCHANGED_BATCH_SIZE = 100;
/** Longest an unchanged calendar waits for its batch to fill before it is written anyway, in milliseconds. */
export const UNCHANGED_FLUSH_MS = 20;

/** Gathers items and writes them in batches. */
export interface WriteBatch<T, R> {
  /** Queues one item; resolves with its outcome once its batch committed, rejects with the batch's error. */
  add(item: T): Promise<R>;
  /** Items queued and not yet being written. */
  readonly waiting: number;
  /** Writes what is queued now. */
  flush(): void;
}

/** Gathers unchanged calendars and writes them in batches. */
export type UnchangedBatch = WriteBatch<UnchangedSync, void>;
/** Gathers failed attempts and writes them in batches; each resolves with its calendar's streak. */
export type FailureBatch = WriteBatch<CalendarFailure, CalendarStreak>;

/** A batch of at most `size` unchanged calendars, written when full, `flushMs` after its first one, or on `flush()`. */
export function createUnchangedBatch(store: Pick<SyncStore, "recordUnchangedSyncs">, size: number, flushMs: number): UnchangedBatch {
  return createWriteBatch(async (items: UnchangedSync[]) => {
    await store.recordUnchangedSyncs(items);
    return items.map(() => undefined);
  }, size, flushMs);
}

/** The same for failed attempts (`recordCalendarFailures`). */
export function createFailureBatch(store: Pick<SyncStore, "recordCalendarFailures">, size: number, flushMs: number): FailureBatch {
  return createWriteBatch((items: CalendarFailure[]) => store.recordCalendarFailures(items), size, flushMs);
}

/** Items written by `write` (one outcome per item, in order) at most `size` at a time. */
function createWriteBatch<T, R>(write: (items: T[]) => Promise<R[]>, size: number, flushMs: number): WriteBatch<T, R> {
  let queued: Array<{ item: T; resolve: (outcome: R) => void; reject: (error: unknown) => void }> = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (queued.length === 0) return;
    const batch = queued;
    queued = [];
    write(batch.map((entry) => entry.item)).then(
      (outcomes) => batch.forEach((entry, i) => entry.resolve(outcomes[i]!)),
      (error: unknown) => batch.forEach((entry) => entry.reject(error)),
    );
  };
  return {
    add(item) {
      return new Promise<R>((resolve, reject) => {
        queued.push({ item, resolve, reject });
        if (queued.length >= size) flush();
        else timer ??= setTimeout(flush, flushMs);
      });
    },
    get waiting() {
      return queued.length;
    },
    flush,
  };
}
