// The Cleaning page in headless Chromium (CONTRACT §18), read by accessible names: the navigation link, the
// next 30 days of turnovers across properties with same-day and tight ones marked in words, and the cleaning
// links made, copied, rotated and revoked (the old link answering 404).
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../src/server/dashboard/passwords.js";
import type { RunningServer } from "../src/server/index.js";
import type { Store } from "../src/store/types.js";
import { HAS_CHROMIUM, SKIP_NOTE } from "./helpers/chromium.js";
import { startDashboardBrowser, type DashboardBrowser } from "./helpers/dashboard-browser.js";
import type { FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";

if (!HAS_CHROMIUM) console.log(SKIP_NOTE);

const PASSWORD = "a password for cleaning";

describe.skipIf(!HAS_CHROMIUM)("the Cleaning page in a browser", () => {
  let running: DashboardBrowser | undefined;
  let store: Store;
  let feeds: FeedServer;
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    running = await startDashboardBrowser("calsync-browser-cleaning-");
    ({ store, feeds, server, browser } = running);
  }, 60_000);

  afterAll(async () => {
    await running?.close();
  });

  it("lists the turnovers with same-day and tight marked, and makes, rotates and revokes a cleaning link", async () => {
    const owner = await store.createOwner("Cleo Clean", { email: "cleo@example.com" });
    await store.setOwnerPassword(owner.id, await hashPassword(PASSWORD));
    const loft = await store.createProperty(owner.id, "Harbour Loft");
    await store.updateProperty(loft.id, { bufferNights: 1, checkOutTime: "10:00", checkInTime: "16:00" });
    const hut = await store.createProperty(owner.id, "Mountain Hut");
    const airbnb = feeds.url("/cleaning/airbnb.ics", { body: buildIcs([
      { uid: "a1", start: day(3), end: day(5), summary: "Reserved - Secret Guest" },
      { uid: "a2", start: day(5), end: day(8), summary: "Reserved" },
    ]) });
    const vrbo = feeds.url("/cleaning/vrbo.ics", { body: buildIcs([{ uid: "v1", start: day(4), end: day(6), summary: "Reserved" }]) });
    await store.createCalendar({ propertyId: loft.id, source: "airbnb", url: airbnb });
    await store.createCalendar({ propertyId: hut.id, source: "vrbo", url: vrbo });
    const { syncOwner } = await import("../src/engine/sync.js");
    await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel("Email").fill("cleo@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${server.url}/properties`);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Cleaning" }).click();
    await page.getByRole("heading", { name: "Cleaning", level: 1 }).waitFor();

    const table = page.getByRole("table", { name: "Turnovers in the next 30 days" });
    const rows = (await table.getByRole("row").allInnerTexts()).slice(1).map((r) => r.replace(/\s+/g, " ").trim());
    expect(rows).toEqual([
      `${day(5)} Harbour Loft 10:00 ${day(5)} at 16:00 Same day Tight`,
      `${day(6)} Mountain Hut 11:00 No next arrival booked`,
      `${day(8)} Harbour Loft 10:00 No next arrival booked`,
    ]);
    expect(await page.content()).not.toContain("Secret Guest");

    await page.getByRole("button", { name: "Make link: Harbour Loft" }).click();
    await page.getByText("Link made.").waitFor();
    const first = (await page.locator(`#cleaning-${loft.id}`).textContent())!;
    expect(first).toMatch(/\/cleaning\/[A-Za-z0-9]{32}\.ics$/);
    expect((await fetch(first)).status).toBe(200);
    expect(await page.getByRole("button", { name: "Copy" }).isVisible()).toBe(true);

    await page.getByRole("button", { name: "Rotate: Harbour Loft" }).click();
    await page.getByText("New link made: the old one now answers 404.").waitFor();
    const second = (await page.locator(`#cleaning-${loft.id}`).textContent())!;
    expect(second).not.toBe(first);
    expect((await fetch(first)).status).toBe(404);

    await page.getByRole("button", { name: "Revoke: Harbour Loft" }).click();
    await page.getByText("Link switched off: it now answers 404.").waitFor();
    expect((await fetch(second)).status).toBe(404);
    expect(await page.getByRole("button", { name: "Make link: All properties" }).count()).toBe(1);

    // The timeline flags the booking that arrives inside the buffer, in words a screen reader reads.
    await page.goto(`${server.url}/properties/${loft.id}/timeline`);
    expect(await page.locator(".bar.tight").count()).toBe(1);
    expect(await page.locator(".bar.tight .visually-hidden").textContent()).toContain("tight turnover");
    await context.close();
  });

  it("saves the property's turnover settings from its page, and refuses a bad address naming the field, saving nothing", async () => {
    const owner = await store.createOwner("Tim Times", { email: "tim@example.com" });
    await store.setOwnerPassword(owner.id, await hashPassword(PASSWORD));
    const property = await store.createProperty(owner.id, "Olive Barn");
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel("Email").fill("tim@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${server.url}/properties`);
    await page.goto(`${server.url}/properties/${property.id}`);

    await page.getByLabel("Check-in").fill("16:00");
    await page.getByLabel("Check-out").fill("10:00");
    await page.getByLabel("Buffer nights").fill("1");
    await page.getByLabel("Cleaner emails").fill("cleo@example.com\ndan@example.org");
    await page.getByRole("button", { name: "Save turnover settings" }).click();
    await page.getByText("Turnover settings saved.").waitFor();
    expect(await store.getProperty(property.id)).toMatchObject({ checkInTime: "16:00", checkOutTime: "10:00", bufferNights: 1, cleanerEmails: ["cleo@example.com", "dan@example.org"] });
    expect(await page.getByLabel("Cleaner emails").inputValue()).toBe("cleo@example.com\ndan@example.org");

    await page.getByLabel("Buffer nights").fill("2");
    await page.getByLabel("Cleaner emails").fill("Cleo <cleo@example.com>");
    await page.getByRole("button", { name: "Save turnover settings" }).click();
    const refusal = await page.getByRole("alert").textContent();
    expect(refusal).toContain("Cleaner emails:");
    expect(refusal).toContain("Nothing was saved.");
    expect(await store.getProperty(property.id)).toMatchObject({ bufferNights: 1, cleanerEmails: ["cleo@example.com", "dan@example.org"] });
    await context.close();
  });

  it("shows the owner's calendar link on Settings, saying it carries personal data, and makes and revokes it", async () => {
    const owner = await store.createOwner("Pia Private", { email: "pia@example.com" });
    await store.setOwnerPassword(owner.id, await hashPassword(PASSWORD));
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel("Email").fill("pia@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${server.url}/properties`);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    const card = page.getByRole("region", { name: "Your calendar" });
    expect(await card.textContent()).toContain("This link carries personal data of your guests.");
    expect(await store.feedSecret("owner-calendar", owner.id, "read")).toBeNull();
    await card.getByRole("button", { name: "Make calendar link" }).click();
    await page.getByText("Calendar link made.").waitFor();
    const link = (await page.locator("#owner-calendar-url").textContent())!;
    expect(link).toMatch(/\/ical\/owner\/[A-Za-z0-9]{32}\.ics$/);
    const res = await fetch(link);
    expect([res.status, res.headers.get("cache-control")]).toEqual([200, "private, no-cache"]);
    await page.getByRole("button", { name: "Revoke calendar link" }).click();
    await page.getByText("Calendar link switched off: it now answers 404.").waitFor();
    expect((await fetch(link)).status).toBe(404);
    await context.close();
  });
});
