// The dashboard's Webhooks page (CONTRACT §9, §11) over the real h3 app and store: add an endpoint (its
// secret shown once), see deliveries after Sync now, remove it; refusals keep what was typed, escaped.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/server/index.js";
import { hashPassword } from "../src/server/dashboard/passwords.js";
import { pageClient, signIn } from "./helpers/dashboard-client.js";
import { BASE, startDashboardFixture, type DashboardFixture } from "./helpers/dashboard-fixture.js";
import { buildIcs, day } from "./helpers/ics.js";

let fx: DashboardFixture;
beforeAll(async () => {
  fx = await startDashboardFixture();
});
afterAll(async () => {
  await fx.close();
});

const secretOf = (html: string) => html.match(/data-testid="new-webhook-secret">([^<]+)</)?.[1];

describe("the Webhooks page", () => {
  it("adds an endpoint, shows its secret only in that answer, lists it, and removes it", async () => {
    const { owner, client } = await fx.signedIn();
    expect(await client.page("/webhooks")).toContain("No webhooks yet.");
    const added = await client.post("/webhooks", { url: "https://hooks.example.com/calsync?key=k3y", events: "booking.conflict" });
    expect(added.status).toBe(200);
    const html = await added.text();
    const [endpoint] = await fx.store.listWebhookEndpoints(owner.id);
    expect(endpoint).toMatchObject({ url: "https://hooks.example.com/calsync?key=k3y", events: ["booking.conflict"] });
    expect(secretOf(html)).toBe(endpoint!.secret);
    expect(html).toContain("shown only this once");

    const later = await client.page("/webhooks");
    expect(secretOf(later)).toBeUndefined();
    expect(later).not.toContain(endpoint!.secret);
    expect(later).toContain("https://hooks.example.com/calsync?key=***");
    expect(later).not.toContain("k3y");
    expect(later).toMatch(new RegExp(`<tr data-webhook-id="${endpoint!.id}">[\\s\\S]*?booking\\.conflict`));

    const removed = await client.post(`/webhooks/${endpoint!.id}/remove`, {});
    expect(removed.status).toBe(303);
    expect(removed.headers.get("location")).toBe("/webhooks");
    expect(await client.page("/webhooks")).toContain("Removed the webhook to https://hooks.example.com/calsync?key=***");
    expect(await fx.store.listWebhookEndpoints(owner.id)).toEqual([]);
  });

  it("subscribes to every event when none is ticked", async () => {
    const { owner, client } = await fx.signedIn();
    await client.page("/webhooks");
    await client.post("/webhooks", { url: "https://hooks.example.com/all" });
    expect((await fx.store.listWebhookEndpoints(owner.id))[0]!.events).toEqual(["*"]);
    expect(await client.page("/webhooks")).toContain("every event");
  });

  it("lists the deliveries of the owner's syncs, newest first, with their state", async () => {
    const { owner, client } = await fx.signedIn();
    const property = await fx.store.createProperty(owner.id, "Loft");
    const feed = fx.feeds.url(`/${owner.id}/hooks.ics`, { body: buildIcs([{ uid: "a", start: day(5), end: day(8), summary: "Reserved" }]) });
    await fx.store.createCalendar({ propertyId: property.id, source: "airbnb", url: feed });
    await fx.store.createWebhookEndpoint({ ownerId: owner.id, url: "https://hooks.example.com/in", events: ["*"], secret: "whsec_c2VjcmV0c2VjcmV0c2VjcmV0" });
    await client.page("/properties");
    await client.post("/sync", { back: "/properties" });
    const html = await client.page("/webhooks");
    const deliveries = html.slice(html.indexOf("Recent deliveries"));
    expect(deliveries.match(/<tr data-event-id="msg_/g)).toHaveLength(2);
    expect(deliveries).toContain('<code class="event">reservation.created</code>');
    expect(deliveries).toContain('<code class="event">sync.completed</code>');
    expect(deliveries).toContain('<span class="pill muted-pill">pending</span>');
  });

  it("refuses a bad URL with 422, keeping what was typed as text", async () => {
    const { owner, client } = await fx.signedIn();
    await client.page("/webhooks");
    const typed = 'javascript:alert("<b>x</b>")';
    const refused = await client.post("/webhooks", { url: typed, events: "sync.completed" });
    expect(refused.status).toBe(422);
    const html = await refused.text();
    expect(html).toContain("The webhook URL must be an https:// (or http://) address");
    expect(html).toContain('value="javascript:alert(&quot;&lt;b&gt;x&lt;/b&gt;&quot;)"');
    expect(html).toMatch(/value="sync\.completed" checked>/);
    expect(await fx.store.listWebhookEndpoints(owner.id)).toEqual([]);
    expect((await client.post("/webhooks", { url: "https://hooks.example.com/x", events: "nonsense" })).status).toBe(422);
  });

  it("refuses a private address unless the server allows private networks (blocked_address)", async () => {
    const app = createApp({ store: fx.store, allowPrivateNetworks: false });
    const owner = await fx.store.createOwner("Guarded", { email: "guarded@example.com" });
    await fx.store.setOwnerPassword(owner.id, await hashPassword("correct horse battery"));
    const client = pageClient((request) => app.fetch(request), BASE);
    await signIn(client, "guarded@example.com", "correct horse battery");
    await client.page("/webhooks");
    const refused = await client.post("/webhooks", { url: "http://127.0.0.1:8080/hooks" });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain("Webhook address 127.0.0.1 is private or local");
    expect(await fx.store.listWebhookEndpoints(owner.id)).toEqual([]);
  });
});
