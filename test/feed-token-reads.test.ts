// Reading a property never makes or brings back its outbound feed token (CONTRACT §14): a feed switched off with
// `property feed --revoke` stays off through every read (API, SDK, dashboard), and a property never published
// gets no public URL by being read. Only the owner's own ask (`property feed`, "Create feed URL") makes one.
import { describe, expect, it } from "vitest";
import { hashPassword } from "../src/server/dashboard/passwords.js";
import { createClient } from "../src/sdk/index.js";
import type { Store } from "../src/store/types.js";
import { runCli } from "./helpers/cli.js";
import { pageClient, signIn } from "./helpers/dashboard-client.js";
import { buildIcs, day } from "./helpers/ics.js";
import { ownerWith, useServerFixtures } from "./helpers/server-fixtures.js";

const { newStore, serve, feed } = useServerFixtures();
const PASSWORD = "correct horse battery";

async function setUp() {
  const store = await newStore();
  const path = store.path;
  const url = feed({ body: buildIcs([{ uid: "a1", start: day(10), end: day(13), summary: "Reserved" }]) });
  const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url }] });
  await store.setOwnerEmail(ann.ownerId, "ann@example.com");
  await store.setOwnerPassword(ann.ownerId, await hashPassword(PASSWORD));
  const server = await serve(store, { webhooks: false });
  const loft = ann.propertyIds.Loft!;
  const api = (path: string) => fetch(`${server.url}${path}`, { headers: { "x-api-key": ann.token } });
  const sdk = createClient({ apiKey: ann.token, baseURL: server.url, maxRetries: 0 });
  const browser = pageClient((request) => fetch(request), server.url);
  await signIn(browser, "ann@example.com", PASSWORD);

  /** Every read a door offers: API routes, SDK calls, dashboard pages; returns the feedUrls the API showed. */
  async function readEverywhere(): Promise<Array<string | null>> {
    const one = await api(`/api/v1/properties/${loft}`);
    const list = await api("/api/v1/properties");
    expect([one.status, list.status]).toEqual([200, 200]);
    expect((await api(`/api/v1/properties/${loft}/reservations`)).status).toBe(200);
    expect((await api(`/api/v1/properties/${loft}/availability`)).status).toBe(200);
    const shown: Array<string | null> = [((await one.json()) as { feedUrl: string | null }).feedUrl];
    shown.push(...((await list.json()) as { data: Array<{ feedUrl: string | null }> }).data.map((p) => p.feedUrl));
    shown.push((await sdk.properties.retrieve(loft)).feedUrl);
    for await (const property of sdk.properties.list()) shown.push(property.feedUrl);
    for (const page of ["/properties", `/properties/${loft}`, `/properties/${loft}/timeline`]) await browser.page(page);
    return shown;
  }
  return { path, store, server, loft, readEverywhere, browser };
}

const token = async (store: Store, id: string) => (await store.getProperty(id))!.feedToken;

describe("a property's feed token", () => {
  it("is not made by reading a property never published", async () => {
    const { store, loft, readEverywhere, browser } = await setUp();
    expect(await readEverywhere()).toEqual([null, null, null, null]);
    expect(await token(store, loft)).toBeNull();
    // The dashboard offers to make one; the page view itself made none.
    expect(await browser.page(`/properties/${loft}`)).toContain("Create feed URL");
  });

  it("stays off after --revoke through every read: /ical and /availability keep answering 404", async () => {
    const { path, store, server, loft, readEverywhere } = await setUp();
    const made = await runCli(["property", "feed", loft, "--db", path, "--base-url", server.url, "--json"]);
    expect(made.code).toBe(0);
    const { url } = JSON.parse(made.stdout) as { url: string };
    const published = url.slice(`${server.url}/ical/`.length, -".ics".length);
    expect(await readEverywhere()).toEqual([url, url, url, url]);
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(`${server.url}/availability/${published}.json`)).status).toBe(200);

    expect((await runCli(["property", "feed", loft, "--db", path, "--revoke"])).code).toBe(0);
    expect(await readEverywhere()).toEqual([null, null, null, null]);
    expect(await token(store, loft)).toBeNull();
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(`${server.url}/availability/${published}.json`)).status).toBe(404);
  });

  it("is made by the dashboard's Create feed URL button, which a read then shows", async () => {
    const { store, loft, browser, readEverywhere } = await setUp();
    await browser.page(`/properties/${loft}`);
    expect((await browser.post(`/properties/${loft}/feed`, {})).status).toBe(303);
    const made = await token(store, loft);
    expect(made).toMatch(/^[A-Za-z0-9]{32}$/);
    expect((await readEverywhere())[0]).toMatch(new RegExp(`/ical/${made}\\.ics$`));
  });
});
