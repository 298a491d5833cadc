// Leases and the schedule (CONTRACT §10) on both stores: what makes a sync single flight across processes
// and instances, and N schedules sync each owner once per period. Two store objects on one database
// stand for two processes.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import type { SyncResponse } from "../src/types.js";
import { storeKinds } from "./helpers/stores.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  /** Two stores on one fresh database, as two processes would have. */
  const twoProcesses = async () => {
    const location = await kind.create();
    const pair = [await openStore(location), await openStore(location)] as const;
    stores.push(...pair);
    return pair;
  };
  /** An owner with one calendar, and one without. */
  const owners = async (store: Store) => {
    const busy = await store.createOwner("Ana");
    const property = await store.createProperty(busy.id, "Loft");
    await store.createCalendar({ propertyId: property.id, url: "https://a.example/1.ics", source: "airbnb" });
    const idle = await store.createOwner("Ben");
    await store.createProperty(idle.id, "Empty");
    return { busy: busy.id, idle: idle.id };
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  describe("owner leases", () => {
    it("gives an owner's lease to one run at a time and tells the others which run holds it", async () => {
      const [a, b] = await twoProcesses();
      const { busy } = await owners(a);
      expect(await a.acquireSyncLease({ ownerId: busy, runId: "run_1", holder: "host:1", ttlMs: 60_000 })).toEqual({ acquired: true });
      expect(await b.acquireSyncLease({ ownerId: busy, runId: "run_2", holder: "host:2", ttlMs: 60_000 })).toEqual({
        acquired: false,
        lease: { ownerId: busy, runId: "run_1", holder: "host:1", expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) },
      });
      expect((await b.syncLease(busy))?.runId).toBe("run_1");

      await b.releaseSyncLease({ ownerId: busy, runId: "run_2" }); // not b's: nothing happens
      expect((await a.syncLease(busy))?.runId).toBe("run_1");
      await a.releaseSyncLease({ ownerId: busy, runId: "run_1" });
      expect(await b.syncLease(busy)).toBeUndefined();
      expect(await b.acquireSyncLease({ ownerId: busy, runId: "run_2", holder: "host:2", ttlMs: 60_000 })).toEqual({ acquired: true });
    });

    it("lets a lapsed lease be taken over, so a killed holder blocks nobody for longer than its lease", async () => {
      const [a, b] = await twoProcesses();
      const { busy } = await owners(a);
      await a.acquireSyncLease({ ownerId: busy, runId: "run_1", holder: "killed", ttlMs: 1 });
      await pause(20);
      expect(await b.syncLease(busy)).toBeUndefined();
      expect(await b.acquireSyncLease({ ownerId: busy, runId: "run_2", holder: "host:2", ttlMs: 60_000 })).toEqual({ acquired: true });
      // The old run learns it lost the lease when it tries to renew.
      expect(await a.renewSyncLease({ ownerId: busy, runId: "run_1", ttlMs: 60_000 })).toBe(false);
      expect((await a.syncLease(busy))?.runId).toBe("run_2");
    });

    it("keeps a renewed lease past its first expiry", async () => {
      const [a, b] = await twoProcesses();
      const { busy } = await owners(a);
      await a.acquireSyncLease({ ownerId: busy, runId: "run_1", holder: "host:1", ttlMs: 1 });
      expect(await a.renewSyncLease({ ownerId: busy, runId: "run_1", ttlMs: 60_000 })).toBe(true);
      await pause(20);
      expect(await b.acquireSyncLease({ ownerId: busy, runId: "run_2", holder: "host:2", ttlMs: 60_000 })).toMatchObject({
        acquired: false,
        lease: { runId: "run_1" },
      });
    });

    it("records a run under the id it is given, with its whole response for those who waited", async () => {
      const [a, b] = await twoProcesses();
      const { busy } = await owners(a);
      const response: SyncResponse = {
        ok: true, syncedCalendars: 0, propertiesChecked: 1, failed: 0, durationMs: 7, results: [],
        conflicts: [{ propertyId: "prp_x", propertyName: "Loft", from: "2030-01-01", to: "2030-01-02", reservations: [] }],
      };
      await a.recordSyncRun({ id: "run_given", ownerId: busy, trigger: "api", dryRun: false, startedAt: new Date(), calendarIds: [], response });
      expect(JSON.stringify(await b.syncRunResponse("run_given"))).toBe(JSON.stringify(response));
      expect(await b.syncRunResponse("run_unknown")).toBeUndefined();
      expect((await b.listSyncRuns())[0]?.id).toBe("run_given");
    });
  });

  describe("the schedule", () => {
    it("claims each due owner with calendars once, whichever process asks, and again a period later", async () => {
      const [a, b] = await twoProcesses();
      const { busy } = await owners(a);
      expect(await a.claimScheduledSyncs({ everyMs: 50 })).toEqual([]); // first seen: due one period from now
      await pause(80);
      const claims = await Promise.all([a.claimScheduledSyncs({ everyMs: 60_000 }), b.claimScheduledSyncs({ everyMs: 60_000 })]);
      expect(claims.flat()).toEqual([busy]);
      expect([...(await a.claimScheduledSyncs({ everyMs: 60_000 })), ...(await b.claimScheduledSyncs({ everyMs: 60_000 }))]).toEqual([]);
    });

    it("leaves an owner being synced anywhere to that run", async () => {
      const [a, b] = await twoProcesses();
      const { busy } = await owners(a);
      await a.claimScheduledSyncs({ everyMs: 50 });
      await pause(80);
      await a.acquireSyncLease({ ownerId: busy, runId: "run_api", holder: "host:1", ttlMs: 60_000 });
      expect(await b.claimScheduledSyncs({ everyMs: 60_000 })).toEqual([]);
      await a.releaseSyncLease({ ownerId: busy, runId: "run_api" });
      expect(await b.claimScheduledSyncs({ everyMs: 60_000 })).toEqual([busy]);
    });
  });
});
