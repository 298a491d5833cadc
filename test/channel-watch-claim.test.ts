// The channel check on several instances sharing one database (CONTRACT §17, §10): each period's check is
// claimed in the store, so it runs once per period in total, not once per instance, and what it tells is told
// once. Two store objects on one database stand for two instances (a SQLite file opened twice, or PostgreSQL).
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CHANNEL_CHECK_TASK, CHECK_HOLD_MS, startChannelWatch } from "../src/server/channel-watch.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { until } from "./helpers/server-fixtures.js";
import { storeKinds } from "./helpers/stores.js";

const EVERY_MS = 100;
const STALE_AFTER_MS = 3_600_000;
/** Two days on: a link never read since its calendar was added is long stale by then. */
const later = () => new Date(Date.now() + 2 * 86_400_000);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `store`, noting when each check starts (its first page of properties) and failing its checks when told to. */
function watched(store: Store, starts: number[], options: { failChecks?: boolean } = {}): Store {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key !== "propertiesAfter") return Reflect.get(target, key, receiver);
      return async (after: string | null, limit: number) => {
        if (after === null) starts.push(performance.now());
        if (options.failChecks) throw new Error("the check failed");
        return target.propertiesAfter(after, limit);
      };
    },
  });
}

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  const twoInstances = async () => {
    const location = await kind.create();
    const pair = [await openStore(location), await openStore(location)] as const;
    stores.push(...pair);
    return pair;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  it("checks once per period in total, not once per instance, and tells a stale link once", async () => {
    const [a, b] = await twoInstances();
    const owner = await a.createOwner("Ann");
    const property = await a.createProperty(owner.id, "Harbour Loft");
    await a.createCalendar({ propertyId: property.id, source: "booking", url: "https://example.invalid/loft.ics" });

    const starts: number[] = [];
    const errors: unknown[] = [];
    let reported = 0;
    const watches = [a, b].map((store) =>
      startChannelWatch({
        store: watched(store, starts),
        staleAfterMs: STALE_AFTER_MS,
        everyMs: EVERY_MS,
        now: later,
        onReported: (count) => (reported += count),
        onError: (error) => errors.push(error),
      }),
    );
    try {
      await pause(12 * EVERY_MS);
    } finally {
      for (const watch of watches) await watch.stop();
    }

    expect(errors).toEqual([]);
    expect(reported).toBe(1);
    expect(starts.length).toBeGreaterThanOrEqual(3);
    // Each check starts a whole period after the one before ended, whichever instance ran it (2 ms: the
    // store's clock and this process's timer may round apart). Without the claim both start every period.
    const gaps = starts.slice(1).map((start, i) => start - starts[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(EVERY_MS - 2);
  });

  it("reports a claim that fails and goes on ticking", async () => {
    const location = await kind.create();
    const closed = await openStore(location);
    await closed.close();
    const errors: unknown[] = [];
    const watch = startChannelWatch({ store: closed, everyMs: 20, onError: (error) => errors.push(error) });
    try {
      await until(() => errors.length >= 2);
    } finally {
      await watch.stop();
    }
    expect(errors[0]).toBeInstanceOf(Error);
  });

  it("tells the next time after a check that failed, instead of holding the check off for the whole hold", async () => {
    const [a, b] = await twoInstances();
    const errors: unknown[] = [];
    // A period long enough that the other instance asks before the next is due, even on a busy machine.
    const everyMs = 1000;
    const watch = startChannelWatch({ store: watched(a, [], { failChecks: true }), everyMs, onError: (error) => errors.push(error) });
    try {
      await until(() => errors.length > 0);
    } finally {
      await watch.stop();
    }
    expect((errors[0] as Error).message).toBe("the check failed");
    const claim = await b.claimPeriodicTask({ name: CHANNEL_CHECK_TASK, holdMs: CHECK_HOLD_MS });
    expect(claim).toEqual({ claimed: false, dueInMs: expect.any(Number) });
    // Due within a period, not after CHECK_HOLD_MS.
    expect(!claim.claimed && claim.dueInMs).toBeLessThanOrEqual(everyMs);
  });
});
