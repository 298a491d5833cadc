// Which events a sync announces (CONTRACT §11), end to end: the real engine on a real SQLite file and on
// PostgreSQL fetches loopback feeds, the outbox is drained by the real delivery code, and a loopback
// receiver records the bodies.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { conflictKey } from "../src/engine/webhook-events.js";
import { deliverDueWebhooks } from "../src/server/webhooks/worker.js";
import { openStore } from "../src/store/index.js";
import type { Store, WebhookSubscription } from "../src/store/types.js";
import type { CalendarSource } from "../src/types.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver.js";

let feeds: FeedServer;
let receiver: WebhookReceiver;
let count = 0;

beforeAll(async () => {
  feeds = await startFeedServer();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
  await feeds.close();
});

const stay = (uid: string, from: number, to: number, summary = "Reserved") => ({ uid, start: day(from), end: day(to), summary });

/** An owner with one property and a webhook endpoint; `calendar()` adds a calendar whose feed `set()` changes. */
async function owner(kind: StoreKind, stores: Store[], events: WebhookSubscription[] = ["*"]) {
  const store = await openStore(await kind.create());
  stores.push(store);
  const ann = await store.createOwner("Ann");
  const property = await store.createProperty(ann.id, "Loft");
  const endpoint = await store.createWebhookEndpoint({ ownerId: ann.id, url: receiver.url, events, secret: "whsec_c2VjcmV0c2VjcmV0c2VjcmV0" });
  const calendar = async (source: CalendarSource, body: string) => {
    const path = `/events/${++count}.ics`;
    const created = await store.createCalendar({ propertyId: property.id, source, url: feeds.url(path, { body }) });
    return { ...created, set: (spec: { body: string } | { status: number }) => feeds.setRoute(path, spec) };
  };
  const clock = { now: new Date() };
  const sync = async (options: { dryRun?: boolean; force?: boolean } = {}) =>
    syncOwner({ store, ownerId: ann.id, allowPrivateNetworks: true, now: () => clock.now, ...options });
  // What the receiver gets from this owner's syncs since the last call.
  let seen = receiver.received.length;
  const delivered = async () => {
    await deliverDueWebhooks({ store, allowPrivateNetworks: true });
    const fresh = receiver.received.slice(seen).map((entry) => entry.event);
    seen = receiver.received.length;
    return fresh;
  };
  return { store, ownerId: ann.id, property, endpoint, calendar, sync, clock, delivered };
}

const types = (events: Array<{ type: string }>) => events.map((event) => event.type).sort();

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
    await kind.dispose();
  });

  describe("events of a sync", () => {
    it("announces each created, updated and cancelled reservation with its nights, and sync.completed on every run", async () => {
      const { store, property, calendar, sync, delivered } = await owner(kind, stores);
      const airbnb = await calendar("airbnb", buildIcs([stay("a", 10, 13), stay("b", 20, 22)]));
      const first = await sync();
      const created = await delivered();
      expect(types(created)).toEqual(["reservation.created", "reservation.created", "sync.completed"]);
      const rows = await store.listReservations({ propertyId: property.id });
      const a = rows.find((row) => row.uid === "a")!;
      expect(created.find((event) => event.type === "reservation.created" && event.data.reservation.uid === "a")).toEqual({
        type: "reservation.created",
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        data: {
          reservation: {
            id: a.id, propertyId: property.id, propertyName: "Loft", calendarId: airbnb.id, source: "airbnb", uid: "a",
            kind: "booking", status: "active", start: day(10), end: day(13), arrival: day(10), departure: day(13), summary: "Reserved",
          },
        },
      });
      expect(created.find((event) => event.type === "sync.completed")).toEqual({ type: "sync.completed", timestamp: expect.any(String), data: first });

      airbnb.set({ body: buildIcs([stay("a", 11, 14)]) });
      await sync();
      const changed = await delivered();
      expect(types(changed)).toEqual(["reservation.cancelled", "reservation.updated", "sync.completed"]);
      const updated = changed.find((event) => event.type === "reservation.updated")!;
      expect(updated.data).toEqual({
        reservation: expect.objectContaining({ id: a.id, start: day(11), end: day(14), arrival: day(11), departure: day(14), status: "active" }),
        previous: { start: day(10), end: day(13), arrival: day(10), departure: day(13) },
      });
      const cancelled = changed.find((event) => event.type === "reservation.cancelled")!;
      expect(cancelled.data.reservation).toMatchObject({ uid: "b", status: "cancelled", arrival: day(20), departure: day(22) });

      // An unchanged feed: the run is announced, nothing else.
      await sync();
      expect(types(await delivered())).toEqual(["sync.completed"]);
    });

    it("sends one calendar.failed when a feed fails a third time in a row, and one calendar.recovered at its first success after", async () => {
      const { calendar, sync, clock, delivered } = await owner(kind, stores);
      const booking = await calendar("booking", buildIcs([stay("x", 10, 12)]));
      await sync();
      await delivered();
      booking.set({ status: 503 });
      const failingFrom = new Date(Date.now() + 60_000);
      const failed: string[][] = [];
      for (let run = 0; run < 5; run++) {
        clock.now = new Date(failingFrom.getTime() + run * 3_600_000);
        await sync();
        failed.push(types(await delivered()));
      }
      expect(failed).toEqual([
        ["sync.completed"],
        ["sync.completed"],
        ["calendar.failed", "sync.completed"],
        ["sync.completed"],
        ["sync.completed"],
      ]);
      const failure = receiver.events("calendar.failed").at(-1)!;
      expect(failure.data).toEqual({
        calendar: { id: booking.id, propertyId: booking.propertyId, propertyName: "Loft", source: "booking" },
        consecutiveFailures: 3,
        failingSince: failingFrom.toISOString(),
        error: { code: "http_error", message: "feed answered HTTP 503", httpStatus: 503 },
      });

      booking.set({ body: buildIcs([stay("x", 10, 12)]) });
      await sync();
      expect(types(await delivered())).toEqual(["calendar.recovered", "sync.completed"]);
      expect(receiver.events("calendar.recovered").at(-1)!.data).toEqual({
        calendar: { id: booking.id, propertyId: booking.propertyId, propertyName: "Loft", source: "booking" },
        consecutiveFailures: 5,
        failingSince: failingFrom.toISOString(),
      });
      await sync();
      expect(types(await delivered())).toEqual(["sync.completed"]);
    });

    it("announces a double booking the first time it is seen, not on later syncs, and again when it comes back", async () => {
      const { calendar, sync, delivered } = await owner(kind, stores);
      await calendar("airbnb", buildIcs([stay("a1", 10, 14, "Reserved")]));
      const vrbo = await calendar("vrbo", buildIcs([stay("v1", 12, 15, "Reserved - Bob")]));
      await sync();
      const first = (await delivered()).filter((event) => event.type === "booking.conflict");
      expect(first).toHaveLength(1);
      expect(first[0]!.data).toMatchObject({ propertyName: "Loft", from: day(12), to: day(14) });
      expect(first[0]!.data.reservations.map((r) => r.source).sort()).toEqual(["airbnb", "vrbo"]);

      await sync();
      expect(types(await delivered())).toEqual(["sync.completed"]);
      // Its nights move: the same reservations, the same double booking, not news.
      vrbo.set({ body: buildIcs([stay("v1", 13, 16, "Reserved - Bob")]) });
      await sync();
      expect(types(await delivered())).toEqual(["reservation.updated", "sync.completed"]);

      vrbo.set({ body: buildIcs([]) });
      await sync(); // one booking cancelled: the guard lets a single one go
      vrbo.set({ body: buildIcs([stay("v1", 13, 16, "Reserved - Bob")]) });
      await sync();
      expect(types(await delivered())).toEqual([
        "booking.conflict", "reservation.cancelled", "reservation.created", "sync.completed", "sync.completed",
      ]);
    });

    it("sends an endpoint only the types it subscribed to", async () => {
      const { calendar, sync, delivered } = await owner(kind, stores, ["reservation.cancelled", "calendar.failed"]);
      const feed = await calendar("other", buildIcs([stay("a", 10, 12)]));
      await sync();
      expect(await delivered()).toEqual([]);
      feed.set({ body: buildIcs([]) });
      await sync({ force: true });
      expect(types(await delivered())).toEqual(["reservation.cancelled"]);
    });
  });

  describe("what emits nothing", () => {
    it("a dry run writes no event", async () => {
      const { store, calendar, sync, delivered } = await owner(kind, stores);
      await calendar("airbnb", buildIcs([stay("a", 10, 12)]));
      await sync({ dryRun: true });
      expect(await store.countPendingWebhookDeliveries()).toBe(0);
      expect(await delivered()).toEqual([]);
    });

    it("a calendar the mass-cancellation guard stops announces no cancellation", async () => {
      const { calendar, sync, delivered } = await owner(kind, stores);
      const feed = await calendar("airbnb", buildIcs([stay("a", 10, 12), stay("b", 20, 22)]));
      await sync();
      await delivered();
      feed.set({ body: buildIcs([]) });
      const response = await sync();
      expect(response.results[0]!.result.error?.code).toBe("suspicious_feed");
      expect(types(await delivered())).toEqual(["sync.completed"]);
    });

    it("a calendar whose write rolls back leaves no event in the outbox", async () => {
      const { store, calendar } = await owner(kind, stores);
      const feed = await calendar("airbnb", buildIcs([]));
      const event = { uid: "dup", kind: "booking" as const, start: day(10), end: day(12), arrival: day(10), departure: day(12), summary: "", cancelled: false, details: {}, raw: {} };
      // The same UID twice breaks (calendar, UID) uniqueness half-way through the transaction.
      const write = store.applyCalendarSync({
        calendarId: feed.id,
        inserts: [event, { ...event }],
        updates: [],
        cancels: [],
        feed: { etag: null, lastModified: null, contentHash: null, lastFound: 2 },
        syncedAt: new Date(),
        events: [{ type: "sync.completed", timestamp: new Date().toISOString(), data: { ok: true, syncedCalendars: 0, propertiesChecked: 0, failed: 0, durationMs: 0, results: [] } }],
      });
      await expect(write).rejects.toThrow(/unique/i);
      expect(await store.countPendingWebhookDeliveries()).toBe(0);
      expect(await store.listReservations({ propertyId: feed.propertyId })).toEqual([]);
    });

    it("an owner without endpoints keeps no events, and another owner's endpoint hears nothing", async () => {
      const { store } = await owner(kind, stores);
      const bob = await store.createOwner("Bob");
      const property = await store.createProperty(bob.id, "Cabin");
      await store.createCalendar({ propertyId: property.id, source: "other", url: feeds.url(`/bob/${++count}.ics`, { body: buildIcs([stay("b", 10, 12)]) }) });
      await syncOwner({ store, ownerId: bob.id, allowPrivateNetworks: true });
      expect(await store.countPendingWebhookDeliveries()).toBe(0);
      expect(await store.listWebhookDeliveries()).toEqual([]);
    });
  });
});

describe("conflictKey", () => {
  const reservations = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `rsv_${String(i).padStart(20, "0")}` }));

  it("is the property and the sorted reservation ids, whatever their order", () => {
    expect(conflictKey({ propertyId: "prp_1", reservations: [{ id: "rsv_b" }, { id: "rsv_a" }] } as never)).toBe("prp_1:rsv_a,rsv_b");
  });

  it("is hashed when the ids run long, so PostgreSQL's index takes it (200 channels on the same nights)", () => {
    const many = reservations(200);
    const key = conflictKey({ propertyId: "prp_1", reservations: many } as never);
    expect(key).toMatch(/^prp_1:sha256:[0-9a-f]{64}$/);
    expect(conflictKey({ propertyId: "prp_1", reservations: [...many].reverse() } as never)).toBe(key);
    expect(conflictKey({ propertyId: "prp_1", reservations: many.slice(1) } as never)).not.toBe(key);
  });
});
