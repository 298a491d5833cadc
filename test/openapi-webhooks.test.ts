// The `webhooks` of the OpenAPI document (CONTRACT §11, §12): one POST per event type with the signature
// headers, and payload schemas that what calsync really sends validates against, field for field.
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { checkChannels } from "../src/server/channel-watch.js";
import { openApiDocument } from "../src/server/openapi/document.js";
import { WEBHOOK_SCHEMAS } from "../src/server/openapi/webhook-schemas.js";
import { generateWebhookSecret } from "../src/server/webhooks/endpoint-rules.js";
import { deliverDueWebhooks } from "../src/server/webhooks/worker.js";
import { openStore } from "../src/store/index.js";
import { WEBHOOK_EVENT_TYPES, type WebhookEvent } from "../src/types.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day } from "./helpers/ics.js";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver.js";

const { tmp, feeds } = useCliFixtures();
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
});

/** Validates `event` against the request body the document gives its type. */
function validator() {
  const document = openApiDocument();
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  ajv.addSchema({ ...document, $id: "https://calsync.invalid/openapi.json" });
  return (event: WebhookEvent) => {
    const validate = ajv.compile({ $ref: `https://calsync.invalid/openapi.json#/webhooks/${event.type}/post/requestBody/content/application~1json/schema` });
    return validate(event) ? "valid" : JSON.stringify(validate.errors);
  };
}

describe("the webhooks of the OpenAPI document", () => {
  it("describe a signed POST per event type, answered with any 2xx", () => {
    const document = openApiDocument();
    for (const type of WEBHOOK_EVENT_TYPES) {
      const post = (document.webhooks[type] as any).post;
      expect(post.parameters.map((p: { name: string }) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
      expect(post.security).toEqual([]);
      expect(Object.keys(post.responses)).toEqual(["2XX"]);
      expect(post.requestBody.content["application/json"].schema.$ref).toMatch(/^#\/components\/schemas\/\w+Event$/);
    }
  });

  it("have schemas a strict JSON Schema 2020-12 compiler accepts", () => {
    const ajv = new Ajv2020({ strict: true });
    for (const schema of Object.values(WEBHOOK_SCHEMAS)) expect(() => ajv.compile(schema)).not.toThrow();
  });

  it("accept every payload a real sync sends, and refuse one with a field too many", async () => {
    const store = await openStore(tmp.db());
    try {
      const owner = await store.createOwner("Ann");
      const property = await store.createProperty(owner.id, "Loft");
      const stay = (uid: string, from: number, to: number) => ({ uid, start: day(from), end: day(to), summary: "Reserved" });
      await store.createCalendar({ propertyId: property.id, source: "airbnb", url: feeds.url("/doc/airbnb.ics", { body: buildIcs([stay("a", 10, 14), stay("b", 20, 22)]) }) });
      await store.createCalendar({ propertyId: property.id, source: "vrbo", url: feeds.url("/doc/vrbo.ics", { body: buildIcs([stay("v", 12, 15)]) }) });
      await store.createWebhookEndpoint({ ownerId: owner.id, url: receiver.url, events: ["*"], secret: generateWebhookSecret() });
      const clock = { now: new Date() };
      const sync = () => syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true, now: () => clock.now });
      await sync();
      feeds.setRoute("/doc/airbnb.ics", { body: buildIcs([stay("a", 11, 14)]) });
      await sync();
      feeds.setRoute("/doc/vrbo.ics", { status: 500 });
      for (let i = 1; i <= 3; i++) await sync();
      feeds.setRoute("/doc/vrbo.ics", { body: buildIcs([stay("v", 12, 15)]) });
      await sync();
      // The channel check's events (CONTRACT §17): both links never read 2 h after they were added, then read
      // (recovered), with Airbnb's stays exposed on Vrbo's link for 7 h.
      const hour = 3_600_000;
      const later = (ms: number) => new Date(clock.now.getTime() + ms);
      await checkChannels(store, { staleAfterMs: hour, now: later(2 * hour) });
      for (const source of ["airbnb", "vrbo"] as const) {
        await store.recordOutboundFetch({ propertyId: property.id, exclude: [source], etag: `"${source}"`, nights: [], at: later(2 * hour + 1000) });
      }
      await checkChannels(store, { staleAfterMs: hour, now: later(7 * hour) });
      await deliverDueWebhooks({ store, allowPrivateNetworks: true });
    } finally {
      await store.close();
    }
    const events = receiver.events();
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(WEBHOOK_EVENT_TYPES));
    const validate = validator();
    for (const event of events) expect(validate(event), event.type).toBe("valid");
    const extra = { ...events.find((e) => e.type === "reservation.updated")!, surprise: 1 } as WebhookEvent;
    expect(validate(extra)).toMatch(/additionalProperties/);
  });
});
