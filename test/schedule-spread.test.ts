// `--sync-every` spreads owners over the period (issue 40): each owner comes due at its own offset, a hash of
// its id, so a server starting on a database full of owners does not sync them all at the same instant every
// period. Before, every owner first seen together was due at the same millisecond, period after period.
import { afterAll, describe, expect, it } from "vitest";
import { nextScheduleSlot, scheduleOffsetMs, scheduleSpread } from "../src/store/schedule-slots.js";
import { openStore } from "../src/store/index.js";
import { storeKinds } from "./helpers/stores.js";

const HOUR = 3_600_000;

describe("schedule slots", () => {
  it("fall evenly over the period, the same for an owner every time, between half a period and one and a half from now", () => {
    const owners = Array.from({ length: 10_000 }, (_, i) => `own_${i.toString(36).padStart(8, "0")}`);
    const now = Date.UTC(2031, 0, 1, 9); // the top of an hour
    const starts = owners.map((owner) => nextScheduleSlot(owner, now, HOUR).getTime());
    expect(starts.every((at) => at > now + HOUR / 2 && at <= now + HOUR * 1.5)).toBe(true);
    const spread = scheduleSpread(starts, HOUR);
    // 60 one-minute parts of 166.7 starts on average; a herd would be 60.
    expect(spread.peakToMean, JSON.stringify(spread)).toBeLessThan(1.4);
    expect(owners.map((owner) => scheduleOffsetMs(owner, HOUR))).toEqual(owners.map((owner) => scheduleOffsetMs(owner, HOUR)));
    // Claimed at its slot, an owner is next due at the same point of the next period; claimed late, never
    // sooner than half a period later.
    expect(owners.slice(0, 100).map((owner) => nextScheduleSlot(owner, nextScheduleSlot(owner, now, HOUR).getTime(), HOUR).getTime()))
      .toEqual(starts.slice(0, 100).map((at) => at + HOUR));
    const late = starts[0]! + HOUR * 0.7;
    expect(nextScheduleSlot(owners[0]!, late, HOUR).getTime()).toBe(starts[0]! + 2 * HOUR);
  });
});

describe.each(storeKinds())("the $name schedule", (kind) => {
  afterAll(async () => {
    await kind.dispose();
  });

  it("puts owners first seen together at their own slots, and keeps each at its slot after a run", async () => {
    const location = await kind.create();
    const store = await openStore(location);
    try {
      const owners: string[] = [];
      for (let i = 0; i < 200; i++) {
        const owner = await store.createOwner(`Owner ${i}`);
        const property = await store.createProperty(owner.id, "Loft");
        await store.createCalendar({ propertyId: property.id, url: `https://example.com/${i}.ics`, source: "airbnb" });
        owners.push(owner.id);
      }
      const before = Date.now();
      expect(await store.claimScheduledSyncs({ everyMs: HOUR })).toEqual([]);
      const rows = await kind.query(location, "SELECT owner_id, next_run_at FROM sync_schedule");
      const due = new Map(rows.map((row) => [String(row.owner_id), new Date(row.next_run_at as string).getTime()]));
      expect(due.size).toBe(200);
      for (const owner of owners) {
        const at = due.get(owner)!;
        // First seen: due between half a period and one and a half from now.
        expect(at, owner).toBeGreaterThan(before + HOUR / 2);
        expect(at, owner).toBeLessThanOrEqual(Date.now() + HOUR * 1.5);
        // PostgreSQL computes the slot in SQL: the same offset as schedule-slots.ts.
        expect(at % HOUR, owner).toBe(scheduleOffsetMs(owner, HOUR));
      }
      // 10 parts of 20 owners on average; all at one instant (as before) would be 10.
      expect(scheduleSpread([...due.values()], HOUR, 10).peakToMean).toBeLessThan(2);

      // A short period: every owner comes due within one and a half, is claimed once, and is next due at its slot again.
      const everyMs = 300;
      await kind.query(location, "DELETE FROM sync_schedule");
      expect(await store.claimScheduledSyncs({ everyMs })).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, everyMs * 1.5 + 50));
      const claimed = await store.claimScheduledSyncs({ everyMs });
      expect(claimed.sort()).toEqual([...owners].sort());
      const after = await kind.query(location, "SELECT owner_id, next_run_at FROM sync_schedule");
      for (const row of after) {
        expect(new Date(row.next_run_at as string).getTime() % everyMs).toBe(scheduleOffsetMs(String(row.owner_id), everyMs));
      }
    } finally {
      await store.close();
    }
  }, 60_000);
});
