// Delivering the outbox (CONTRACT §11) to real loopback receivers: Standard Webhooks signatures, retries
// with the same webhook-id, the schedule's end, timeouts and connection errors, the private-network guard,
// claims between workers (and between processes on one database), and a slow receiver that holds up nobody
// else; on SQLite and PostgreSQL. Clocks are options, never sleeps.
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../src/sdk/index.js";
import { generateWebhookSecret } from "../src/server/webhooks/endpoint-rules.js";
import { DEFAULT_RETRY_SCHEDULE_MS } from "../src/server/outbox/retry-schedule.js";
import { deliverDueWebhooks, startWebhookWorker, type DeliveryAttempt, type WebhookDeliveryOptions } from "../src/server/webhooks/worker.js";
import { openStore } from "../src/store/index.js";
import type { Store, WebhookEndpoint } from "../src/store/types.js";
import type { SyncResponse, WebhookEvent } from "../src/types.js";
import { until } from "./helpers/server-fixtures.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";
import { closedPort } from "./helpers/stub-api-server.js";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver.js";

const receivers: WebhookReceiver[] = [];
const HOUR = 3_600_000;

beforeAll(async () => {
  receivers.push(await startWebhookReceiver(), await startWebhookReceiver());
});
afterEach(() => {
  for (const receiver of receivers) receiver.reset();
});
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
});

const response: SyncResponse = { ok: true, syncedCalendars: 0, propertiesChecked: 1, failed: 0, durationMs: 4, results: [] };
const completed = (): WebhookEvent => ({ type: "sync.completed", timestamp: new Date().toISOString(), data: response });

/** A store with one owner and an endpoint per URL; `emit()` writes events the way a finished run does. */
async function outbox(kind: StoreKind, stores: Store[], ...urls: string[]) {
  const location = await kind.create();
  const store = await openStore(location);
  stores.push(store);
  const owner = await store.createOwner("Ann");
  const endpoints: WebhookEndpoint[] = [];
  for (const url of urls) endpoints.push(await store.createWebhookEndpoint({ ownerId: owner.id, url, events: ["*"], secret: generateWebhookSecret() }));
  const emit = (...events: WebhookEvent[]) =>
    store.recordSyncRun({ ownerId: owner.id, trigger: "cli", dryRun: false, startedAt: new Date(), calendarIds: [], response, events });
  const attempts: DeliveryAttempt[] = [];
  const deliver = (options: Partial<WebhookDeliveryOptions> = {}) =>
    deliverDueWebhooks({ store, allowPrivateNetworks: true, onAttempt: (a) => attempts.push(a), ...options });
  return { location, store, endpoints, emit, deliver, attempts };
}

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
    await kind.dispose();
  });

  describe("a delivery", () => {
    it("carries the event byte for byte, signed so that the SDK and the standardwebhooks package both verify it", async () => {
      const [receiver] = receivers;
      const { endpoints, emit, deliver } = await outbox(kind, stores, receiver!.url);
      const event = completed();
      await emit(event);
      const before = receiver!.received.length;
      expect(await deliver()).toEqual({ attempted: 1, delivered: 1, retrying: 0, failed: 0 });
      const got = receiver!.received.slice(before);
      expect(got).toHaveLength(1);
      const { headers, body } = got[0]!;
      expect(body).toBe(JSON.stringify(event));
      expect(headers["content-type"]).toBe("application/json");
      expect(headers["user-agent"]).toMatch(/^calsync\//);
      expect(headers["webhook-id"]).toMatch(/^msg_[0-9A-Za-z]{20}$/);
      expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
      expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

      const secret = endpoints[0]!.secret;
      expect(verifyWebhook(body, headers as Record<string, string>, secret)).toEqual(event);
      expect(new Webhook(secret).verify(body, headers as Record<string, string>)).toEqual(event);
      expect(() => new Webhook(generateWebhookSecret()).verify(body, headers as Record<string, string>)).toThrow(/No matching signature/);
    });

    it("is tried once more after a 500 and delivered by the 200, with the same webhook-id", async () => {
      const [receiver] = receivers;
      const { store, emit, deliver } = await outbox(kind, stores, receiver!.url);
      await emit(completed());
      const t0 = new Date();
      const before = receiver!.received.length;
      receiver!.answer(500);
      expect(await deliver({ now: () => t0, random: () => 0.5 })).toEqual({ attempted: 1, delivered: 0, retrying: 1, failed: 0 });
      const [waiting] = await store.listWebhookDeliveries();
      expect(waiting).toMatchObject({ status: "pending", attempts: 1, lastStatus: 500, lastError: "receiver answered HTTP 500" });
      expect(waiting!.nextAttemptAt).toBe(new Date(t0.getTime() + 5_000).toISOString());

      expect(await deliver({ now: () => new Date(t0.getTime() + 4_000) })).toMatchObject({ attempted: 0 });
      expect(await deliver({ now: () => new Date(t0.getTime() + 5_000) })).toEqual({ attempted: 1, delivered: 1, retrying: 0, failed: 0 });
      const got = receiver!.received.slice(before);
      expect(got.map((r) => r.status)).toEqual([500, 204]);
      expect(got[1]!.headers["webhook-id"]).toBe(got[0]!.headers["webhook-id"]);
      expect(got[1]!.body).toBe(got[0]!.body);
      expect(Number(got[1]!.headers["webhook-timestamp"]) - Number(got[0]!.headers["webhook-timestamp"])).toBe(5);
      expect(await store.listWebhookDeliveries()).toEqual([
        expect.objectContaining({ eventId: got[0]!.headers["webhook-id"], status: "delivered", attempts: 2, lastStatus: 204, lastError: null, nextAttemptAt: null }),
      ]);
      expect(await deliver({ now: () => new Date(t0.getTime() + 48 * HOUR) })).toMatchObject({ attempted: 0 });
    });

    it("keeps trying with growing waits for more than 24 hours, the first retry within 30 s, then fails for good", async () => {
      const [receiver] = receivers;
      const { store, emit, deliver, attempts } = await outbox(kind, stores, receiver!.url);
      await emit(completed());
      receiver!.answer(...Array(20).fill(503));
      let now = new Date();
      const times: number[] = [];
      // The shortest waits jitter allows, to show the last attempt still comes more than a day after the first.
      for (let round = 0; round < 20; round++) {
        const summary = await deliver({ now: () => now, random: () => 0 });
        if (summary.attempted === 0) break;
        times.push(now.getTime());
        const next = attempts.at(-1)!.nextAttemptAt;
        if (!next) break;
        now = next;
      }
      expect(times).toHaveLength(DEFAULT_RETRY_SCHEDULE_MS.length + 1);
      const waits = times.slice(1).map((t, i) => t - times[i]!);
      expect(waits[0]).toBeLessThanOrEqual(30_000);
      for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1]!);
      expect(times.at(-1)! - times[0]!).toBeGreaterThan(24 * HOUR);
      expect(attempts.at(-1)).toMatchObject({ delivered: false, status: 503, nextAttemptAt: null });
      expect(await store.listWebhookDeliveries()).toEqual([expect.objectContaining({ status: "failed", attempts: 9, nextAttemptAt: null, lastStatus: 503 })]);
      expect(await store.countPendingWebhookDeliveries()).toBe(0);
      expect(await deliver({ now: () => new Date(now.getTime() + 100 * HOUR) })).toMatchObject({ attempted: 0 });
    });

    it("retries a receiver that times out, cuts the connection, refuses it, or redirects", async () => {
      const [receiver] = receivers;
      const nobody = `http://127.0.0.1:${await closedPort()}/hooks`;
      const { emit, deliver, attempts } = await outbox(kind, stores, receiver!.url, nobody);
      await emit(completed());
      receiver!.hold();
      await deliver({ timeoutMs: 300 });
      receiver!.release();
      expect(attempts.map((a) => a.error).sort()).toEqual([
        "receiver did not answer within 0.3 s",
        expect.stringMatching(/^receiver host 127\.0\.0\.1:\d+ refused the connection$/),
      ]);
      expect(attempts.every((a) => a.status === null && a.nextAttemptAt !== null)).toBe(true);

      receiver!.down();
      const later = new Date(Date.now() + HOUR);
      await deliver({ now: () => later });
      receiver!.up();
      expect(attempts.slice(2).map((a) => a.error)).toContainEqual(expect.stringMatching(/^receiver host 127\.0\.0\.1:\d+ closed the connection$/));

      receiver!.answer(302);
      await deliver({ now: () => new Date(later.getTime() + 2 * HOUR) });
      expect(attempts.slice(4).map((a) => a.error)).toContain("receiver answered HTTP 302");
    });

    it("checks the private-network guard on every attempt: a loopback receiver is refused unless private networks are allowed", async () => {
      const [receiver] = receivers;
      const byName = receiver!.url.replace("127.0.0.1", "localhost");
      const { store, emit, deliver, attempts } = await outbox(kind, stores, receiver!.url, byName);
      await emit(completed());
      const before = receiver!.received.length;
      await deliver({ allowPrivateNetworks: false });
      expect(receiver!.received.length).toBe(before);
      expect(attempts.map((a) => a.error).sort()).toEqual([
        "receiver address 127.0.0.1 is private or local; refused (allow with --allow-private-networks)",
        expect.stringMatching(/^receiver address localhost \((127\.0\.0\.1|::1)\) is private or local; refused/),
      ]);
      expect(await store.countPendingWebhookDeliveries()).toBe(2);
    });
  });

  describe("workers", () => {
    it("never attempt one delivery at the same time: a claim holds until it is finished or runs out", async () => {
      const [receiver] = receivers;
      const { store, emit } = await outbox(kind, stores, receiver!.url);
      await emit(completed());
      const now = new Date(Date.now() + 1000);
      const until = new Date(now.getTime() + 40_000);
      const first = await store.claimWebhookDeliveries({ worker: "a", now, until, limit: 5 });
      expect(first).toHaveLength(1);
      expect(await store.claimWebhookDeliveries({ worker: "b", now, until, limit: 5 })).toEqual([]);
      // Worker a died: once its claim ran out, b takes the delivery over, and a's late result is ignored.
      const taken = await store.claimWebhookDeliveries({ worker: "b", now: until, until: new Date(until.getTime() + 40_000), limit: 5 });
      expect(taken.map((d) => d.eventId)).toEqual([first[0]!.eventId]);
      const { eventId, endpointId } = first[0]!;
      await store.finishWebhookDelivery({ eventId, endpointId, worker: "a", at: until, delivered: true, status: 200, error: null, nextAttemptAt: null });
      expect((await store.listWebhookDeliveries())[0]).toMatchObject({ status: "pending", attempts: 0 });
      await store.finishWebhookDelivery({ eventId, endpointId, worker: "b", at: until, delivered: true, status: 200, error: null, nextAttemptAt: null });
      expect((await store.listWebhookDeliveries())[0]).toMatchObject({ status: "delivered", attempts: 1 });
    });

    it("in two processes claiming at once, take each delivery once and never two of one endpoint at a time", async () => {
      const urls = ["https://a.example/hook", "https://b.example/hook", "https://c.example/hook"];
      const { location, store, endpoints, emit } = await outbox(kind, stores, ...urls);
      await emit(completed(), completed(), completed(), completed());
      const other = await openStore(location);
      stores.push(other);
      const now = new Date(Date.now() + 1000);
      const until = new Date(now.getTime() + 40_000);
      const sent: string[] = [];
      for (let round = 0; round < 4; round++) {
        // Six workers, half in each process, all claiming at the same moment.
        const claims = await Promise.all(
          Array.from({ length: 6 }, (_, i) => (i % 2 ? store : other).claimWebhookDeliveries({ worker: `w${i}`, now, until, limit: 8 }).then(
            (claimed) => claimed.map((delivery) => ({ ...delivery, worker: `w${i}` })),
          )),
        );
        const claimed = claims.flat();
        expect(claimed.map((d) => d.endpointId).sort()).toEqual(endpoints.map((e) => e.id).sort());
        for (const { eventId, endpointId, worker } of claimed) {
          sent.push(`${eventId} ${endpointId}`);
          await (Number(worker.slice(1)) % 2 ? store : other).finishWebhookDelivery({ eventId, endpointId, worker, at: now, delivered: true, status: 204, error: null, nextAttemptAt: null });
        }
      }
      expect(new Set(sent).size).toBe(12);
      expect(await store.countPendingWebhookDeliveries()).toBe(0);
      expect((await store.listWebhookDeliveries()).every((d) => d.status === "delivered" && d.attempts === 1)).toBe(true);
    });

    it("send to one endpoint one event at a time, while a slow receiver holds up no other endpoint", async () => {
      const [slow, fast] = receivers;
      const { store, endpoints, emit } = await outbox(kind, stores, slow!.url, fast!.url);
      slow!.hold();
      const slowBefore = slow!.received.length;
      const fastBefore = fast!.received.length;
      await emit(completed(), completed());
      const worker = startWebhookWorker({ store, allowPrivateNetworks: true, pollMs: 20 });
      try {
        await until(() => fast!.received.length - fastBefore === 2);
        // Two events are due for the slow endpoint, but it gets the second only after answering the first.
        expect(slow!.received.length - slowBefore).toBe(1);
        expect(slow!.held).toBe(1);
        const statuses = async (endpointId: string) => (await store.listWebhookDeliveries({ endpointId })).map((d) => d.status);
        await until(async () => (await statuses(endpoints[1]!.id)).every((status) => status === "delivered"));
        expect(await statuses(endpoints[0]!.id)).toEqual(["pending", "pending"]);
        slow!.release();
        await until(() => slow!.received.length - slowBefore === 2);
        await until(async () => (await statuses(endpoints[0]!.id)).every((status) => status === "delivered"));
      } finally {
        await worker.stop();
      }
    });

    it("stop interrupts an attempt in flight, which does not count and stays due for the next start", async () => {
      const [slow] = receivers;
      const { store, emit } = await outbox(kind, stores, slow!.url);
      slow!.hold();
      const before = slow!.received.length;
      await emit(completed());
      const reported: DeliveryAttempt[] = [];
      const worker = startWebhookWorker({ store, allowPrivateNetworks: true, pollMs: 20, onAttempt: (a) => reported.push(a) });
      await until(() => slow!.received.length > before);
      await worker.stop();
      expect(await store.listWebhookDeliveries()).toEqual([
        expect.objectContaining({ status: "pending", attempts: 0, lastStatus: null, lastError: "attempt interrupted: calsync was stopping" }),
      ]);
      expect(reported).toEqual([expect.objectContaining({ attempt: 1, delivered: false, interrupted: true })]);
    });

    it("makes a last allowed attempt again when stop cut it short, rather than failing the delivery", async () => {
      const [slow] = receivers;
      const { store, emit, deliver } = await outbox(kind, stores, slow!.url);
      slow!.hold();
      const before = slow!.received.length;
      await emit(completed());
      // An empty schedule makes the first attempt the last one allowed.
      const worker = startWebhookWorker({ store, allowPrivateNetworks: true, pollMs: 20, retryScheduleMs: [] });
      await until(() => slow!.received.length > before);
      await worker.stop();
      expect(await store.listWebhookDeliveries()).toEqual([expect.objectContaining({ status: "pending", attempts: 0 })]);
      slow!.release();
      expect(await deliver({ retryScheduleMs: [] })).toMatchObject({ attempted: 1, delivered: 1, failed: 0 });
      expect(slow!.received.slice(before).map((r) => r.headers["webhook-id"])).toEqual(Array(2).fill(slow!.received[before]!.headers["webhook-id"]));
      expect(await store.listWebhookDeliveries()).toEqual([expect.objectContaining({ status: "delivered", attempts: 1, lastStatus: 204 })]);
    });

    it("makes a last allowed attempt again when its worker died mid-attempt and the claim ran out", async () => {
      const [receiver] = receivers;
      const { store, emit, deliver } = await outbox(kind, stores, receiver!.url);
      await emit(completed());
      const now = new Date(Date.now() + 1000);
      const until = new Date(now.getTime() + 40_000);
      // Worker "dead" claimed it and never recorded anything (a kill -9 during the request).
      expect(await store.claimWebhookDeliveries({ worker: "dead", now, until, limit: 5 })).toHaveLength(1);
      expect(await deliver({ retryScheduleMs: [], now: () => new Date(until.getTime() + 1) })).toMatchObject({ attempted: 1, delivered: 1, failed: 0 });
      expect(await store.listWebhookDeliveries()).toEqual([expect.objectContaining({ status: "delivered", attempts: 1 })]);
    });
  });

  describe("the outbox", () => {
    it("forgets events a month after their deliveries ended, never one still pending", async () => {
      const [receiver] = receivers;
      const { store, emit, deliver } = await outbox(kind, stores, receiver!.url);
      await emit(completed());
      await deliver();
      receiver!.answer(500);
      await emit(completed());
      await deliver();
      expect(await store.pruneWebhookEvents(new Date(Date.now() + 31 * 24 * HOUR))).toBe(1);
      expect(await store.listWebhookDeliveries()).toEqual([expect.objectContaining({ status: "pending" })]);
    });
  });
});
