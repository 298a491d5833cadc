// The "nothing changed" bookkeeping, and that of failed attempts, written many calendars to a transaction
// (issue 40) leaves every calendar exactly as one transaction per calendar does: 500 calendars on a real loopback feed server, some answering
// 304, some the same body, some a new one, some failing and some recovering, synced once batched and once not
// (unchangedBatchSize 1), compared row by row after every round, on SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import type { SyncStore } from "../src/engine/store-port.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";
import { postgresKind, sqliteKind, type StoreKind } from "./helpers/stores.js";

const CALENDARS = 500;
const ROUNDS = 5;
const LIMITS = { concurrency: 16, perHost: 16, ownerConcurrency: 16, ownerPerHost: 16 };

let feeds: FeedServer;
beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => {
  await feeds.close();
});

const stay = (uid: string, from: number) => ({ uid, start: day(from), end: day(from + 3), summary: "Reserved" });
const path = (i: number) => `/batch-${i}.ics`;

/**
 * What calendar `i` answers in `round` (1-based). By i % 10: 0, 5 a 304 (ETag); 1, 6 the same body without
 * validators; 2, 7 a new body each round; 3 fails in rounds 2–4 and recovers in 5 with a 304 (calendar.recovered
 * through the batch); 8 the same, recovering with the same body; 4, 9 fail in round 5 only.
 */
function serveRound(round: number) {
  for (let i = 0; i < CALENDARS; i++) {
    const group = i % 10;
    const failing = ((group === 3 || group === 8) && round >= 2 && round <= 4) || ((group === 4 || group === 9) && round === 5);
    if (failing) feeds.setRoute(path(i), { status: 503 });
    else if (group === 0 || group === 5 || group === 3) feeds.setRoute(path(i), { body: buildIcs([stay(`a${i}`, 5)]), etag: `"v${i}"` });
    else if (group === 2 || group === 7) feeds.setRoute(path(i), { body: buildIcs([stay(`a${i}`, 5), stay(`r${round}`, 10 + round * 4)]) });
    else feeds.setRoute(path(i), { body: buildIcs([stay(`a${i}`, 5), stay(`b${i}`, 20)]) });
  }
}

/** A store with one owner (a webhook endpoint, so events are written) and 500 calendars, one per property. */
async function populate(store: Store): Promise<string> {
  const owner = await store.createOwner("Ana");
  await store.createWebhookEndpoint({ ownerId: owner.id, url: "https://hooks.example.com/in", events: ["*"], secret: "whsec_c2VjcmV0c2VjcmV0c2VjcmV0" });
  for (let i = 0; i < CALENDARS; i++) {
    const property = await store.createProperty(owner.id, `P${String(i).padStart(3, "0")}`);
    await store.createCalendar({ propertyId: property.id, url: feeds.url(path(i)), source: "airbnb" });
  }
  return owner.id;
}

/** The store as the engine sees it, with the size of every batch of unchanged and of failed calendars noted. */
function observed(store: Store, sizes: number[], failureSizes: number[] = []): SyncStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === "recordUnchangedSyncs") {
        return (unchanged: Parameters<SyncStore["recordUnchangedSyncs"]>[0]) => {
          sizes.push(unchanged.length);
          return target.recordUnchangedSyncs(unchanged);
        };
      }
      if (key === "recordCalendarFailures") {
        return (failures: Parameters<SyncStore["recordCalendarFailures"]>[0]) => {
          failureSizes.push(failures.length);
          return target.recordCalendarFailures(failures);
        };
      }
      const value = Reflect.get(target, key) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const CALENDAR_ROWS = `
  SELECT p.name, c.etag, c.last_modified, c.content_hash, c.last_found, c.last_status, c.last_error_code,
    c.last_error_message, c.last_synced_at, c.consecutive_failures, c.failing_since
  FROM calendars c JOIN properties p ON p.id = c.property_id ORDER BY p.name`;
const RESERVATION_ROWS = `
  SELECT p.name, r.uid, r.status, r.arrival, r.departure, r.updated_at FROM reservations r
  JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id ORDER BY p.name, r.uid`;
const EVENT_ROWS = "SELECT type, payload FROM webhook_events";

/** Webhook events without their ids (each store made its own): type, property, uid, the run's time; sorted. */
async function events(kind: StoreKind, location: string): Promise<string[]> {
  const rows = await kind.query(location, EVENT_ROWS);
  return rows.map(({ type, payload }) => {
    type Payload = { timestamp?: string; data?: Record<string, { propertyName?: string; uid?: string }> };
    const event = (typeof payload === "string" ? JSON.parse(payload) : payload) as Payload;
    const about = event.data?.calendar?.propertyName ?? event.data?.reservation?.propertyName ?? "";
    return `${String(type)} ${about} ${event.data?.reservation?.uid ?? ""} ${event.timestamp ?? ""}`;
  }).sort();
}

describe.each([sqliteKind(), postgresKind()])("unchanged calendars written in batches on $name", (kind) => {
  afterAll(async () => {
    await kind.dispose();
  });

  it("leave every calendar's feed state, streak, reservations and events exactly as one transaction each does", async () => {
    const [batchedAt, singleAt] = [await kind.create(), await kind.create()];
    const [batched, single] = [await openStore(batchedAt), await openStore(singleAt)];
    try {
      const [batchedOwner, singleOwner] = [await populate(batched), await populate(single)];
      const start = Date.now();
      for (let round = 1; round <= ROUNDS; round++) {
        serveRound(round);
        // One clock for both runs of a round, so both write the same times.
        const at = new Date(start + round * 60_000);
        const common = { allowPrivateNetworks: true, timeoutMs: 5000, fetchLimits: LIMITS, now: () => at };
        const [sizes, failureSizes, singleSizes] = [[] as number[], [] as number[], [] as number[]];
        const a = await syncOwner({ ...common, store: observed(batched, sizes, failureSizes), ownerId: batchedOwner });
        const b = await syncOwner({ ...common, store: observed(single, singleSizes, singleSizes), ownerId: singleOwner, unchangedBatchSize: 1 });

        // The batch is real: unchanged calendars went many to a write; without it, none did.
        if (round > 1) expect(Math.max(...sizes), `round ${round}`).toBeGreaterThan(1);
        expect(singleSizes).toEqual([]);
        const unchanged = (response: typeof a) => response.results.filter((entry) => entry.ok && entry.result.reservationsCreated === 0
          && entry.result.reservationsUpdated === 0 && entry.result.reservationsCancelled === 0).length;
        if (round > 1) expect(sizes.reduce((sum, n) => sum + n, 0)).toBe(unchanged(a));
        // Failed calendars too.
        expect(failureSizes.reduce((sum, n) => sum + n, 0)).toBe(a.failed);
        if (round > 1) expect(Math.max(...failureSizes), `round ${round}`).toBeGreaterThan(1);

        const strip = (response: typeof a) => response.results.map(({ propertyId: _, ...entry }) => entry);
        expect(strip(a)).toEqual(strip(b));
        expect(a.failed).toBe(round === 1 ? 0 : CALENDARS / 5);
        expect(await kind.query(batchedAt, CALENDAR_ROWS)).toEqual(await kind.query(singleAt, CALENDAR_ROWS));
        expect(await kind.query(batchedAt, RESERVATION_ROWS)).toEqual(await kind.query(singleAt, RESERVATION_ROWS));
        expect(await events(kind, batchedAt)).toEqual(await events(kind, singleAt));
      }
      // The rounds did what they say: 100 calendars recovered after three failures, 100 fail once now.
      const rows = await kind.query(batchedAt, CALENDAR_ROWS);
      expect(rows.filter((row) => Number(row.consecutive_failures) === 1)).toHaveLength(CALENDARS / 5);
      expect(rows.filter((row) => row.last_status === "success")).toHaveLength(CALENDARS * 4 / 5);
      expect(rows.filter((row) => row.etag !== null)).toHaveLength(CALENDARS * 3 / 10);
      const recovered = (await events(kind, batchedAt)).filter((line) => line.startsWith("calendar.recovered"));
      expect(recovered).toHaveLength(CALENDARS / 5);
    } finally {
      await batched.close();
      await single.close();
    }
  }, 120_000);
});
