// Where in the `--sync-every` period each owner's scheduled sync falls (issue 40): a fixed offset from a hash of
// the owner's id, so owners first seen together (every owner, when a server starts on a full database) do not
// all come due at the same instant, period after period. The same on every instance and every restart; the
// PostgreSQL store computes it in SQL (postgres/sync-leases.ts), from the same bits of the same hash.
import { createHash } from "node:crypto";

/** The owner's offset into every period of `everyMs`, in milliseconds (0 … everyMs − 1). */
export function scheduleOffsetMs(ownerId: string, everyMs: number): number {
  return createHash("md5").update(ownerId).digest().readUInt32BE(0) % everyMs;
}

/** The first of the owner's slots strictly after `afterMs`. */
function slotAfter(ownerId: string, afterMs: number, everyMs: number): number {
  const after = afterMs + 1;
  return after + ((((scheduleOffsetMs(ownerId, everyMs) - (after % everyMs)) % everyMs) + everyMs) % everyMs);
}

/**
 * When the owner is next due: its first slot after half a period from now, so between half a period and one and a
 * half later. A new owner is not synced at once (its slot may be a millisecond away); after a run claimed on time,
 * this is the same point of the next period, and a claim that came late (a busy instance) never starts the next
 * run less than half a period after it.
 */
export function nextScheduleSlot(ownerId: string, nowMs: number, everyMs: number): Date {
  return new Date(slotAfter(ownerId, nowMs + Math.floor(everyMs / 2), everyMs));
}

/** How evenly `startsMs` fall over a period of `everyMs` cut into `buckets` parts. */
export interface ScheduleSpread {
  buckets: number;
  /** Starts in the fullest part. */
  peak: number;
  /** Starts per part on average. */
  mean: number;
  /** peak ÷ mean: 1 is perfectly even; `buckets` is every start in one part (a thundering herd). */
  peakToMean: number;
}

/** The spread of scheduled starts over one period, for the bench and the tests. */
export function scheduleSpread(startsMs: readonly number[], everyMs: number, buckets = 60): ScheduleSpread {
  const counts = new Array<number>(buckets).fill(0);
  for (const at of startsMs) counts[Math.floor((((at % everyMs) + everyMs) % everyMs) * buckets / everyMs)]!++;
  const peak = Math.max(0, ...counts);
  const mean = startsMs.length / buckets;
  return { buckets, peak, mean, peakToMean: mean === 0 ? 0 : peak / mean };
}
