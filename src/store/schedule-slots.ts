// Where in the `--sync-every` period each owner's scheduled sync falls (issue 40): a fixed offset from a hash of
// the owner's id, so owners first seen together (every owner, when a server starts on a full database) do not
// all come due at the same instant, period after period. The same on every instance and every restart; the
// PostgreSQL store computes it in SQL (postgres/sync-leases.ts), from the same bits of the same hash.
import { createHash } from "node:crypto";

/** The owner's offset into every period of `everyMs`, in milliseconds (0 … everyMs − 1). */
export function scheduleOffsetMs(ownerId: string, everyMs: number): number {
  return createHash("md5").update(ownerId).digest().readUInt32BE(0) % everyMs;
}

/** The first of the owner's slots strictly after `nowMs`: due within one period, never at once. */
export function nextScheduleSlot(ownerId: string, nowMs: number, everyMs: number): Date {
  const after = nowMs + 1;
  const wait = (((scheduleOffsetMs(ownerId, everyMs) - (after % everyMs)) % everyMs) + everyMs) % everyMs;
  return new Date(after + wait);
}

/**
 * An owner's first slot once first seen: the first after half a period from now, so between half a period and one
 * and a half later (not at once, which a slot a millisecond away would be, nor a period later for every owner).
 */
export function firstScheduleSlot(ownerId: string, nowMs: number, everyMs: number): Date {
  return nextScheduleSlot(ownerId, nowMs + Math.floor(everyMs / 2), everyMs);
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
