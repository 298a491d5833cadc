// Webhooks in `calsync serve` (CONTRACT §11, §12): the worker runs beside the API, a slow receiver never
// delays a sync's answer, and the outbox depth is a metric.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../src/sdk/index.js";
import { generateWebhookSecret } from "../src/server/webhooks/endpoint-rules.js";
import { parsePrometheusText, sampleValue } from "./helpers/prometheus-text.js";
import { ics, ownerWith, post, until, useServerFixtures } from "./helpers/server-fixtures.js";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver.js";

const { feed, newStore, serve } = useServerFixtures();
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
});

/** An owner with one calendar and a webhook endpoint at the receiver. */
async function ownerWithWebhook() {
  const store = await newStore();
  const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed({ body: ics("a1", "a2") }) }] });
  const endpoint = await store.createWebhookEndpoint({ ownerId: ann.ownerId, url: receiver.url, events: ["*"], secret: generateWebhookSecret() });
  return { store, ann, endpoint };
}

describe("calsync serve with webhooks", () => {
  it("sends a sync's events right after it, signed with the endpoint's secret", async () => {
    const { store, ann, endpoint } = await ownerWithWebhook();
    const server = await serve(store, { webhooks: { pollMs: 60_000 } });
    const before = receiver.received.length;
    expect((await post(server, ann.token)).status).toBe(200);
    // The poll is a minute away: only the wake-up after the run can have sent these.
    await until(() => receiver.received.length - before === 3);
    const got = receiver.received.slice(before);
    const events = await Promise.all(got.map((r) => verifyWebhook(r.body, r.headers as Record<string, string>, endpoint.secret)));
    expect(events.map((e) => e.type).sort()).toEqual(["reservation.created", "reservation.created", "sync.completed"]);
    await until(async () => (await store.countPendingWebhookDeliveries()) === 0);
  });

  it("answers a sync while a slow receiver still holds the last run's delivery", async () => {
    const { store, ann } = await ownerWithWebhook();
    receiver.hold();
    try {
      const server = await serve(store);
      expect((await post(server, ann.token)).status).toBe(200);
      await until(() => receiver.held === 1);
      // The receiver has not answered (it would take 30 s, or forever): the next sync is answered all the same.
      const second = await post(server, ann.token);
      expect(second.status).toBe(200);
      expect(((await second.json()) as { ok: boolean }).ok).toBe(true);
      expect(receiver.held).toBe(1);
    } finally {
      receiver.release();
    }
  });

  it("reports the outbox depth as calsync_webhook_outbox_depth", async () => {
    const { store, ann } = await ownerWithWebhook();
    // No worker: the deliveries stay in the outbox, as when every receiver is down.
    const server = await serve(store, { metrics: true, webhooks: false });
    const depth = async () => {
      const families = parsePrometheusText(await (await fetch(`${server.url}/metrics`)).text());
      expect(families.get("calsync_webhook_outbox_depth")?.type).toBe("gauge");
      return sampleValue(families, "calsync_webhook_outbox_depth", {});
    };
    expect(await depth()).toBe(0);
    await post(server, ann.token);
    expect(await depth()).toBe(3);
    await post(server, ann.token);
    expect(await depth()).toBe(4);
  });
});
