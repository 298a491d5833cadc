// Unchanged calendars' bookkeeping written many to a transaction (issue 40) leaves every calendar exactly as
// one transaction each does: 500 calendars on a loopback feed host, some answering 304, some the same body,
// some changed, some failing and some recovering, synced round by round into two databases, one batched and
// one not (batch size 1), then compared row by row. On SQLite and PostgreSQL alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import type { SyncResponse } from "../src/types.js";
import { startFeedServer, type FeedServer, type RouteSpec } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";
import { storeKinds } from "./helpers/stores.js";

const CALENDARS = 500;
const ROUNDS = 5;

let feeds: FeedServer;
beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => {
  await feeds.close();
});

const body = (i: number, version: number) =>
  buildIcs([{ uid: `u${i}`, start: day(10 + version), end: day(12 + version), summary: "Reserved" }]);
const LAST_MODIFIED = "Tue, 01 Jan 2030 00:00:00 GMT";

/** What calendar `i`'s feed answers in `round` (0-based): its kind is `i % 6`. */
function answer(i: number, round: number): RouteSpec {
  switch (i % 6) {
    case 0: // ETag: 304 from the second round on
      return { body: body(i, 0), etag: `"e${i}"` };
    case 1: // Last-Modified only: 304 from the second round on
      return { body: body(i, 0), lastModified: LAST_MODIFIED };
    case 2: // no validators, byte-identical body every time
      return { body: body(i, 0) };
    case 3: // changes every round, with a new ETag
      return { body: body(i, round), etag: `"e${i}-${round}"` };
    case 4: // fails from the second round on, then one in three comes back
      return round === 0 || (round === ROUNDS - 1 && i % 18 === 4) ? { body: body(i, 0), etag: `"e${i}"` } : { status: 503 };
    default: // fails every other round, with the same body between
      return round % 2 === 1 ? { status: 500 } : { body: body(i, 0) };
  }
}

const CALENDAR_COLUMNS = `c.url, c.etag, c.last_modified, c.content_hash, c.last_found, c.last_status, c.last_error_code,
  c.last_error_message, c.last_synced_at, c.consecutive_failures, c.failing_since`;

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const store of stores.splice(0)) await store.close();
    await kind.dispose();
  });

  async function fill() {
    const location = await kind.create();
    const store = await openStore(location);
    stores.push(store);
    const owner = await store.createOwner("Ann");
    // An endpoint for every event, so that what the outbox holds is compared too.
    await store.createWebhookEndpoint({ ownerId: owner.id, url: "http://127.0.0.1:9/hook", events: ["*"], secret: "s".repeat(32) });
    for (let i = 0; i < CALENDARS; i++) {
      const property = await store.createProperty(owner.id, `Property ${String(i).padStart(4, "0")}`);
      await store.createCalendar({ propertyId: property.id, source: "other", url: feeds.url(`/batch/${i}.ics`) });
    }
    return { location, store, ownerId: owner.id };
  }

  it("writes every calendar's feed state, streak and events exactly as one transaction each does", async () => {
    const batched = await fill();
    const single = await fill();
    const limits = { concurrency: 32, perHost: 32, ownerConcurrency: 32, ownerPerHost: 32 };
    const sync = (db: typeof batched, round: number, unchangedBatchSize: number) =>
      syncOwner({
        store: db.store,
        ownerId: db.ownerId,
        allowPrivateNetworks: true,
        fetchLimits: limits,
        unchangedBatchSize,
        now: () => new Date(Date.UTC(2031, 0, 1 + round, 8)),
      });
    // Property ids differ between the two databases; everything else of the response must not.
    const comparable = (response: SyncResponse) => ({
      ...response,
      durationMs: 0,
      results: response.results.map(({ propertyId: _, ...entry }) => entry),
    });
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < CALENDARS; i++) feeds.setRoute(`/batch/${i}.ics`, answer(i, round));
      const a = await sync(batched, round, 100);
      const b = await sync(single, round, 1);
      expect(comparable(a)).toEqual(comparable(b));
      if (round === 0) expect(a.failed).toBe(0);
      else expect(a.failed).toBeGreaterThan(50);
    }

    const calendars = (location: string) =>
      kind.query(location, `SELECT ${CALENDAR_COLUMNS} FROM calendars c JOIN properties p ON p.id = c.property_id ORDER BY p.name`);
    const [rowsA, rowsB] = [await calendars(batched.location), await calendars(single.location)];
    expect(rowsA).toHaveLength(CALENDARS);
    for (let i = 0; i < CALENDARS; i++) expect(rowsA[i], `calendar ${i}`).toEqual(rowsB[i]);
    // The rounds reached every state the comparison is about.
    const last = rowsA.map((row) => new Date(row.last_synced_at as string).toISOString());
    expect(new Set(last)).toEqual(new Set([new Date(Date.UTC(2031, 0, ROUNDS, 8)).toISOString()]));
    expect(rowsA.filter((row) => row.etag !== null).length).toBeGreaterThan(CALENDARS / 3);
    expect(rowsA.filter((row) => row.last_modified === LAST_MODIFIED).length).toBe(Math.ceil((CALENDARS - 1) / 6));
    expect(rowsA.some((row) => Number(row.consecutive_failures) >= 3)).toBe(true);

    // Webhook events: the same ones, by type and calendar, in both.
    const events = async (location: string) =>
      (await kind.query(location, "SELECT type, payload FROM webhook_events"))
        .map(({ type, payload }) => {
          const data = (typeof payload === "string" ? JSON.parse(payload) : payload) as { timestamp: string; data: Record<string, unknown> };
          const calendar = (data.data.calendar ?? (data.data.reservation as { calendar?: unknown } | undefined)?.calendar) as
            | { url?: string; propertyName?: string }
            | undefined;
          return `${String(type)} ${data.timestamp} ${calendar?.propertyName ?? ""}`;
        })
        .sort();
    const [eventsA, eventsB] = [await events(batched.location), await events(single.location)];
    expect(eventsA).toEqual(eventsB);
    expect(eventsA.filter((line) => line.startsWith("calendar.recovered")).length).toBe(Math.ceil((CALENDARS - 4) / 18));
  }, 180_000);
});
