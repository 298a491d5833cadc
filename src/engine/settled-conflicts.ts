// A run's double bookings, each property's read as soon as its last calendar is settled: the reads overlap
// the other feeds' latency instead of following the last answer (150 properties took 30–140 ms at the end
// of a 300-calendar run). Each read sees what a read after the whole run would: every write of that
// property's calendars in this run is done by then, and no other calendar of the run writes its rows.
import { compareConflicts, findPropertyConflicts, type ConflictFinding, type ConflictInput } from "./conflicts.js";

/** Collects the conflicts of a run's properties as their calendars settle. */
export interface SettledConflicts {
  /** One calendar of `propertyId` is written (or its failure recorded): the last one starts the read. */
  settled(propertyId: string): void;
  /** Every property's conflicts, in report order; rejects with the first read that failed. */
  all(): Promise<ConflictFinding[]>;
}

/** Conflicts of the properties of `calendars`, read with `read`; "today" is read from `clock` at each property's read. */
export function settledConflicts(
  calendars: ReadonlyArray<{ propertyId: string }>,
  read: (propertyId: string) => Promise<ConflictInput[]>,
  clock: () => Date,
): SettledConflicts {
  const unsettled = new Map<string, number>();
  for (const { propertyId } of calendars) unsettled.set(propertyId, (unsettled.get(propertyId) ?? 0) + 1);
  const reads: Array<Promise<ConflictFinding[]>> = [];
  return {
    settled(propertyId) {
      const left = (unsettled.get(propertyId) ?? 0) - 1;
      unsettled.set(propertyId, left);
      if (left !== 0) return;
      const found = findPropertyConflicts(read, [propertyId], { now: clock() });
      // Reported by all(), after every calendar is settled, as a read at the end of the run was.
      found.catch(() => {});
      reads.push(found);
    },
    async all() {
      return (await Promise.all(reads)).flat().sort(compareConflicts);
    },
  };
}
