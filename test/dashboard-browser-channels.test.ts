// The property page's "Channels" section (CONTRACT §17) in headless Chromium, read by role and name: a row per
// channel link with its status, and in words the nights Booking.com may still sell after a new Airbnb booking.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nightRangesWords } from "../src/channel-words.js";
import { syncOwner } from "../src/engine/sync.js";
import { hashPassword } from "../src/server/dashboard/passwords.js";
import type { RunningServer } from "../src/server/index.js";
import type { Store } from "../src/store/types.js";
import { HAS_CHROMIUM, SKIP_NOTE } from "./helpers/chromium.js";
import { startDashboardBrowser, type DashboardBrowser } from "./helpers/dashboard-browser.js";
import type { FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";

if (!HAS_CHROMIUM) console.log(SKIP_NOTE);

const PASSWORD = "a password for channels";

describe.skipIf(!HAS_CHROMIUM)("the Channels section in a browser", () => {
  let running: DashboardBrowser | undefined;
  let store: Store;
  let feeds: FeedServer;
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    running = await startDashboardBrowser("calsync-browser-channels-");
    ({ store, feeds, server, browser } = running);
  }, 60_000);

  afterAll(async () => {
    await running?.close();
  });

  it("shows each channel's status and, in words, the nights Booking.com may still sell", async () => {
    const owner = await store.createOwner("Cleo Channels", { email: "cleo@example.com" });
    await store.setOwnerPassword(owner.id, await hashPassword(PASSWORD));
    const property = await store.createProperty(owner.id, "Harbour Flat");
    await store.createCalendar({ propertyId: property.id, source: "airbnb", url: feeds.url("/ch/airbnb.ics", { body: buildIcs([]) }) });
    await store.createCalendar({ propertyId: property.id, source: "booking", url: feeds.url("/ch/booking.ics", { body: buildIcs([]) }) });
    await store.createCalendar({ propertyId: property.id, source: "vrbo", url: feeds.url("/ch/vrbo.ics", { body: buildIcs([]) }) });
    await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    const token = await store.propertyFeedToken(property.id);
    await (await fetch(`${server.url}/ical/${token}.ics?exclude=booking`, { headers: { "user-agent": "Booking.com" } })).text();
    feeds.setRoute("/ch/airbnb.ics", { body: buildIcs([{ uid: "air-1", start: day(20), end: day(23), summary: "Reserved" }]) });
    await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel("Email").fill("cleo@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${server.url}/properties`);
    // The overview marks the property: two links never read, Booking.com behind (no usual interval yet).
    expect(await page.getByRole("link", { name: "Airbnb, Booking.com, Vrbo: check their calendar link" }).count()).toBe(1);
    await page.getByRole("link", { name: "Harbour Flat" }).click();

    const section = page.getByRole("region", { name: "Channels" });
    await section.waitFor();
    const booking = section.getByRole("row", { name: /Booking\.com/ });
    expect(await booking.getByText("may sell taken nights").count()).toBe(1);
    expect(await booking.getByText(`${server.url}/ical/${token}.ics?exclude=booking`).count()).toBe(1);
    expect(await section.getByRole("row", { name: /Vrbo/ }).getByText("never read").count()).toBeGreaterThan(0);
    const nights = nightRangesWords([day(20), day(21), day(22)]);
    const sentence = section.getByRole("listitem").filter({ hasText: `Booking.com may still sell ${nights}: Airbnb took them at` });
    expect(await sentence.count()).toBe(1);
    expect(await sentence.textContent()).toMatch(/took them at \d\d:\d\d; Booking\.com last read your calendar at \d\d:\d\d\.$/);
    expect(await section.getByRole("listitem").filter({ hasText: "Vrbo has never read your calendar" }).count()).toBe(1);

    // The timeline shades those nights in a row of their own, in words.
    await page.getByRole("link", { name: "Timeline" }).click();
    const exposed = page.getByRole("row", { name: /Booking\.com may still sell/ });
    expect(await exposed.locator(".exposed-bar").count()).toBe(1);
    expect(await exposed.locator(".exposed-bar").textContent()).toBe(`Booking.com may sell: ${nights}`);
    await context.close();
  });
});
