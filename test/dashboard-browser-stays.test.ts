// Direct stays in headless Chromium without JavaScript, driven by accessible names (CONTRACT §14's dashboard
// part): Add booking → listed and on the timeline; a stay over nights an Airbnb feed holds → refused in words
// naming Airbnb and the nights; Block nights; Cancel stay, asked first on a page of its own; another owner's
// property → 404; a double booking with a direct stay says it is cancelled in calsync. At 390 px the answer to
// each form (and its warning that a channel could not be refreshed) is in the viewport, where the page lands.
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shortDay } from "../src/server/dashboard/format.js";
import { nightsText } from "../src/server/dashboard/pages/direct-stays.js";
import { hashPassword } from "../src/server/dashboard/passwords.js";
import type { RunningServer } from "../src/server/index.js";
import type { Store } from "../src/store/types.js";
import { seriousViolations } from "./helpers/axe.js";
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
    await page.getByText(`Added a booking for ${nightsText(day(10), day(13))}.`).waitFor();
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
    await page.getByText(`Blocked ${nightsText(day(30), day(32))}.`).waitFor();
    expect(await page.getByRole("button", { name: /^Cancel stay/ }).count()).toBe(2);

    // Cancel stay asks first, naming the stay with its year; "Keep it" changes nothing.
    const cancelName = `Cancel stay ${nightsText(day(10), day(13))}`;
    expect(cancelName).toContain(day(13).slice(0, 4));
    await page.getByRole("button", { name: cancelName }).click();
    await page.getByRole("heading", { name: "Cancel this stay?" }).waitFor();
    expect(await page.getByText(nightsText(day(10), day(13))).count()).toBe(1);
    await page.getByRole("link", { name: "Keep it" }).click();
    expect(await page.getByRole("button", { name: /^Cancel stay/ }).count()).toBe(2);
    expect((await store.listReservations({ propertyId: property.id })).filter((r) => r.source === "direct").map((r) => r.status)).toEqual(["active", "active"]);
    await page.getByRole("button", { name: cancelName }).click();
    await page.getByRole("button", { name: "Cancel stay", exact: true }).click();
    await page.getByText(/^Cancelled the stay of/).waitFor();
    expect(await page.getByRole("button", { name: /^Cancel stay/ }).count()).toBe(1);
    const direct = (await store.listReservations({ propertyId: property.id })).filter((r) => r.source === "direct");
    expect(direct.map((r) => [r.kind, r.status]).sort()).toEqual([["block", "active"], ["booking", "cancelled"]]);

    const notYours = await page.goto(`${server.url}/properties/${foreign.id}`);
    expect(notYours?.status()).toBe(404);
    await context.close();
  }, 120_000);

  /** True when the whole of `locator` is inside the viewport as the page is now. */
  async function inView(page: Page, locator: Locator): Promise<boolean> {
    const box = await locator.boundingBox();
    const height = page.viewportSize()!.height;
    return box !== null && box.y >= 0 && box.y + box.height <= height;
  }

  // Without JavaScript unless `axe` (axe-core runs as a script the dashboard's CSP refuses: bypassCSP).
  async function signedIn(email: string, width: number, axe = false): Promise<{ page: Page; close(): Promise<void> }> {
    const context = await browser.newContext({ viewport: { width, height: 844 }, ...(axe ? { bypassCSP: true } : { javaScriptEnabled: false }) });
    const page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${server.url}/properties`);
    return { page, close: () => context.close() };
  }

  it("shows the answer to Add booking, Block nights and Cancel stay where a 390 px phone lands, warning included", async () => {
    const owner = await store.createOwner("Pia Phone", { email: "pia@example.com" });
    await store.setOwnerPassword(owner.id, await hashPassword(PASSWORD));
    const property = await store.createProperty(owner.id, "Lake Hut");
    // Several calendars above the section, one of them down: its warning must be seen with the answer.
    await store.createCalendar({ propertyId: property.id, source: "airbnb", url: feeds.url("/phone/airbnb.ics", { body: buildIcs([]) }) });
    await store.createCalendar({ propertyId: property.id, source: "vrbo", url: feeds.url("/phone/vrbo.ics", { body: buildIcs([]) }) });
    await store.createCalendar({ propertyId: property.id, source: "booking", url: feeds.url("/phone/booking.ics", { status: 503, body: "down" }) });

    const { page, close } = await signedIn("pia@example.com", 390);
    await page.goto(`${server.url}/properties/${property.id}`);
    await page.getByLabel("Arrival").fill(day(10));
    await page.getByLabel("Departure").fill(day(13));
    await page.getByRole("button", { name: "Add booking" }).click();
    const added = page.getByRole("status").filter({ hasText: `Added a booking for ${nightsText(day(10), day(13))}.` });
    await added.waitFor();
    expect(await added.textContent()).toContain("Booking.com could not be refreshed just now");
    expect(await inView(page, added)).toBe(true);
    expect(await page.evaluate<number>("window.scrollY")).toBeGreaterThan(0);

    await page.getByLabel("Arrival").fill(day(20));
    await page.getByLabel("Departure").fill(day(22));
    await page.getByRole("button", { name: "Block nights" }).click();
    const blocked = page.getByRole("status").filter({ hasText: `Blocked ${nightsText(day(20), day(22))}.` });
    await blocked.waitFor();
    expect(await inView(page, blocked)).toBe(true);

    await page.getByRole("button", { name: `Cancel stay ${nightsText(day(20), day(22))}` }).click();
    await page.getByRole("button", { name: "Cancel stay", exact: true }).click();
    const cancelled = page.getByRole("status").filter({ hasText: /^Cancelled the stay of/ });
    await cancelled.waitFor();
    expect(await inView(page, cancelled)).toBe(true);

    // Refused: the refusal, in words, where the page lands.
    await page.getByLabel("Arrival").fill(day(11));
    await page.getByLabel("Departure").fill(day(12));
    await page.getByRole("button", { name: "Add booking" }).click();
    const refusal = page.getByRole("alert").filter({ hasText: "another direct stay" });
    await refusal.waitFor();
    expect(await inView(page, refusal)).toBe(true);
    await close();
  }, 120_000);

  it("says on the timeline that a double booking's direct stay is cancelled in calsync, and links to its Cancel stay (axe-clean)", async () => {
    const owner = await store.createOwner("Dan Double", { email: "dan@example.com" });
    await store.setOwnerPassword(owner.id, await hashPassword(PASSWORD));
    const property = await store.createProperty(owner.id, "Dune House");
    const { page, close } = await signedIn("dan@example.com", 1280, true);
    await page.goto(`${server.url}/properties/${property.id}`);
    await page.getByLabel("Arrival").fill(day(15));
    await page.getByLabel("Departure").fill(day(18));
    await page.getByLabel("Summary").fill("Phone guest: Ole");
    await page.getByRole("button", { name: "Add booking" }).click();
    await page.getByText(/^Added a booking/).waitFor();
    // Airbnb sells two of those nights afterwards: a double booking with the direct stay.
    const late = buildIcs([{ uid: "late", start: day(16), end: day(19), summary: "Reserved" }]);
    await store.createCalendar({ propertyId: property.id, source: "airbnb", url: feeds.url("/double/airbnb.ics", { body: late }) });
    await page.goto(`${server.url}/properties/${property.id}`);
    await page.getByRole("button", { name: "Sync now" }).click();
    await page.getByRole("heading", { name: "Sync results" }).waitFor();
    await page.goto(`${server.url}/properties/${property.id}/timeline`);
    const found = [];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      found.push(...(await seriousViolations(page)).map((v) => `timeline @${width}: ${v.rule} ${v.targets.join(", ")}`));
    }
    await page.setViewportSize({ width: 1280, height: 844 });
    const banner = page.getByRole("alert");
    expect(await banner.textContent()).toContain("a direct stay is cancelled here in calsync");
    expect(await banner.textContent()).not.toContain("Cancel one of them on its channel");
    await banner.getByRole("link", { name: "Cancel the direct stay in calsync" }).click();
    await page.getByRole("heading", { name: "Cancel this stay?" }).waitFor();
    expect(await page.getByText("Phone guest: Ole").count()).toBe(1);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      found.push(...(await seriousViolations(page)).map((v) => `cancel stay @${width}: ${v.rule} ${v.targets.join(", ")}`));
    }
    expect(found).toEqual([]);
    await close();
  }, 120_000);
});
