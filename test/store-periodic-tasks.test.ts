// Periodic task claims (CONTRACT §10, §17) on both stores: of several processes on one database, one runs a
// periodic task (the channel check) per period. Two store objects on one database stand for two processes.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { postgresKind, storeKinds } from "./helpers/stores.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  const twoProcesses = async () => {
    const location = await kind.create();
    const pair = [await openStore(location), await openStore(location)] as const;
    stores.push(...pair);
    return pair;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  it("gives a due task to one caller, and tells the others how long until it is due again", async () => {
    const [a, b] = await twoProcesses();
    expect(await a.claimPeriodicTask({ name: "check", holdMs: 60_000 })).toEqual({ claimed: true });
    const other = await b.claimPeriodicTask({ name: "check", holdMs: 60_000 });
    expect(other).toEqual({ claimed: false, dueInMs: expect.any(Number) });
    expect(!other.claimed && other.dueInMs).toBeGreaterThan(50_000);
    expect(!other.claimed && other.dueInMs).toBeLessThanOrEqual(60_000);
    expect(await a.claimPeriodicTask({ name: "check", holdMs: 60_000 })).toMatchObject({ claimed: false });
    // Another task is its own.
    expect(await b.claimPeriodicTask({ name: "other", holdMs: 60_000 })).toEqual({ claimed: true });
  });

  it("frees a task its holder never scheduled once the hold is over, so a killed holder delays it by the hold only", async () => {
    const [a, b] = await twoProcesses();
    expect(await a.claimPeriodicTask({ name: "check", holdMs: 40 })).toEqual({ claimed: true });
    expect(await b.claimPeriodicTask({ name: "check", holdMs: 40 })).toMatchObject({ claimed: false });
    await pause(60);
    expect(await b.claimPeriodicTask({ name: "check", holdMs: 60_000 })).toEqual({ claimed: true });
    expect(await a.claimPeriodicTask({ name: "check", holdMs: 60_000 })).toMatchObject({ claimed: false });
  });

  it("is due when its runner says, sooner or later than the hold", async () => {
    const [a, b] = await twoProcesses();
    await a.claimPeriodicTask({ name: "check", holdMs: 60_000 });
    await a.schedulePeriodicTask({ name: "check", inMs: 40 });
    const waiting = await b.claimPeriodicTask({ name: "check", holdMs: 60_000 });
    expect(!waiting.claimed && waiting.dueInMs).toBeLessThanOrEqual(40);
    await pause(60);
    expect(await b.claimPeriodicTask({ name: "check", holdMs: 40 })).toEqual({ claimed: true });
    await b.schedulePeriodicTask({ name: "check", inMs: 60_000 });
    await pause(60);
    // Past the hold, but the runner's next time stands.
    expect(await a.claimPeriodicTask({ name: "check", holdMs: 60_000 })).toMatchObject({ claimed: false });
    // Handed back (a stopping holder): due at once.
    await a.schedulePeriodicTask({ name: "check", inMs: 0 });
    expect(await a.claimPeriodicTask({ name: "check", holdMs: 60_000 })).toEqual({ claimed: true });
  });
});

describe("postgres store, instances claiming at the same moment", () => {
  const kind = postgresKind();
  afterAll(() => kind.dispose());

  it("gives each due period to exactly one of them", async () => {
    const location = await kind.create();
    const instances = await Promise.all(Array.from({ length: 4 }, () => openStore(location)));
    try {
      for (let round = 0; round < 5; round++) {
        const claims = await Promise.all(instances.map((store) => store.claimPeriodicTask({ name: "check", holdMs: 60_000 })));
        expect(claims.filter((claim) => claim.claimed)).toHaveLength(1);
        // Due again at once, for every instance to race for the next.
        await instances[round % instances.length]!.schedulePeriodicTask({ name: "check", inMs: 0 });
      }
    } finally {
      for (const store of instances) await store.close();
    }
  });
});
