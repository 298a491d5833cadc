// Direct stays in headless Chromium without JavaScript, driven by accessible names (CONTRACT §14's dashboard
// part): Add booking → listed and on the timeline; a stay over nights an Airbnb feed holds → refused in words
// naming Airbnb and the nights; Block nights; Cancel stay; another owner's property → 404.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shortDay } from "../src/server/dashboard/format.js";
import { hashPassword } from "../src/server/dashboard/passwords.js";
import type { RunningServer } from "../src/server/index.js";
import type { Store } from "../src/store/types.js";
import { HAS_CHROMIUM, SKIP_NOTE } from "./helpers/chromium.js";
import { startDashboardBrowser, type DashboardBrowser } from "./helpers/dashboard-browser.js";
import type { FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";

if (!HAS_CHROMIUM) console.log(SKIP_NOTE);

const PASSWORD = "a password for stays";

describe.skipIf(!HAS_CHROMIUM)("direct stays in a browser", () => {
  let running: DashboardBrowser | undefined;
  let store: Store;
  let feeds: FeedServer;
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    running = await startDashboardBrowser("calsync-browser-stays-");
    ({ store, feeds, server, browser } = running);
  }, 60_000);

  afterAll(async () => {
    await running?.close();
  });

  it("adds a booking, refuses nights Airbnb holds in words, blocks nights and cancels a stay, without JavaScript", async () => {
    const owner = await store.createOwner("Dora Direct", { email: "dora@example.com" });
    await store.setOwnerPassword(owner.id, await hashPassword(PASSWORD));
    const property = await store.createProperty(owner.id, "Olive House");
    // Airbnb sold nights 20–22 after the last sync (there was none): only the refresh before the check sees them.
    const feed = feeds.url("/stays/airbnb.ics", { body: buildIcs([{ uid: "air-1", start: day(20), end: day(23), summary: "Reserved" }]) });
    await store.createCalendar({ propertyId: property.id, source: "airbnb", url: feed });
    const stranger = await store.createOwner("Sam Stranger", { email: "sam@example.com" });
    const foreign = await store.createProperty(stranger.id, "Not Yours");

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel("Email").fill("dora@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${server.url}/properties`);
    await page.getByRole("link", { name: "Olive House" }).click();

    await page.getByLabel("Arrival").fill(day(10));
    await page.getByLabel("Departure").fill(day(13));
    await page.getByLabel("Summary").fill("Phone guest: Ana");
    await page.getByLabel("Note").fill("pays on arrival");
    await page.getByRole("button", { name: "Add booking" }).click();
    await page.getByText(`Added a booking for ${shortDay(day(10))} → ${shortDay(day(13))} (3 nights).`).waitFor();
    const list = page.getByRole("list", { name: "Upcoming direct stays" });
    await list.getByText("Phone guest: Ana").waitFor();
    expect(await list.getByText("pays on arrival").count()).toBe(1);

    await page.getByRole("link", { name: "Timeline" }).click();
    expect(await page.locator(".bar.booking.source-direct").count()).toBe(1);
    await page.goBack();

    await page.getByLabel("Arrival").fill(day(21));
    await page.getByLabel("Departure").fill(day(25));
    await page.getByLabel("Summary").fill("Too late");
    await page.getByRole("button", { name: "Add booking" }).click();
    const refusal = await page.getByRole("alert").textContent();
    expect(refusal).toContain(`are taken by Airbnb (${shortDay(day(20))} → ${shortDay(day(23))})`);
    expect(await page.getByLabel("Arrival").inputValue()).toBe(day(21));
    expect((await store.listReservations({ propertyId: property.id })).filter((r) => r.summary === "Too late")).toEqual([]);

    await page.getByLabel("Arrival").fill(day(30));
    await page.getByLabel("Departure").fill(day(32));
    await page.getByLabel("Summary").fill("Family weekend");
    await page.getByRole("button", { name: "Block nights" }).click();
    await page.getByText(`Blocked ${shortDay(day(30))} → ${shortDay(day(32))} (2 nights).`).waitFor();
    expect(await page.getByRole("button", { name: /^Cancel stay/ }).count()).toBe(2);

    await page.getByRole("button", { name: `Cancel stay ${shortDay(day(10))} → ${shortDay(day(13))} (3 nights)` }).click();
    await page.getByText(/^Cancelled the stay of/).waitFor();
    expect(await page.getByRole("button", { name: /^Cancel stay/ }).count()).toBe(1);
    const direct = (await store.listReservations({ propertyId: property.id })).filter((r) => r.source === "direct");
    expect(direct.map((r) => [r.kind, r.status]).sort()).toEqual([["block", "active"], ["booking", "cancelled"]]);

    const notYours = await page.goto(`${server.url}/properties/${foreign.id}`);
    expect(notYours?.status()).toBe(404);
    await context.close();
  }, 120_000);
});
