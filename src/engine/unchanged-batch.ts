// The bookkeeping of unchanged calendars (a 304 or the same body), gathered and written many to a transaction:
// most calendars of a round are unchanged, and one commit each was most of what such a calendar cost.
import type { SyncStore, UnchangedSync } from "./store-port.js";

/** Calendars written in one transaction at most. */
export const UNCHANGED_BATCH_SIZE = 100;
/** Longest an unchanged calendar waits for its batch to fill before it is written anyway, in milliseconds. */
export const UNCHANGED_FLUSH_MS = 20;

/** Gathers unchanged calendars and writes them in batches. */
export interface UnchangedBatch {
  /** Queues one calendar; resolves once its batch committed, rejects with the batch's error. */
  add(unchanged: UnchangedSync): Promise<void>;
  /** Calendars queued and not yet being written. */
  readonly waiting: number;
  /** Writes what is queued now. */
  flush(): void;
}

/** A batch of at most `size` calendars, written when full, `flushMs` after its first calendar, or on `flush()`. */
export function createUnchangedBatch(store: Pick<SyncStore, "recordUnchangedSyncs">, size: number, flushMs: number): UnchangedBatch {
  let queued: Array<{ unchanged: UnchangedSync; resolve: () => void; reject: (error: unknown) => void }> = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (queued.length === 0) return;
    const batch = queued;
    queued = [];
    store.recordUnchangedSyncs(batch.map((entry) => entry.unchanged)).then(
      () => batch.forEach((entry) => entry.resolve()),
      (error: unknown) => batch.forEach((entry) => entry.reject(error)),
    );
  };
  return {
    add(unchanged) {
      return new Promise<void>((resolve, reject) => {
        queued.push({ unchanged, resolve, reject });
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
