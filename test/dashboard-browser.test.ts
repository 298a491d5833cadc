// The dashboard in headless Chromium, driven by accessible names (CONTRACT §9): invite → password →
// token → API → revoke; calendars → Sync now with a broken feed → 207 details; the timeline's double
// booking. CALSYNC_SCREENSHOTS=1 also writes docs/dashboard-*.png.
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueInvite } from "../src/server/accounts.js";
import { hashPassword } from "../src/server/dashboard/passwords.js";
import type { RunningServer } from "../src/server/index.js";
import type { Store } from "../src/store/types.js";
import { HAS_CHROMIUM, SKIP_NOTE } from "./helpers/chromium.js";
import { startDashboardBrowser, type DashboardBrowser } from "./helpers/dashboard-browser.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";
import { startWebhookReceiver } from "./helpers/webhook-receiver.js";
import { verifyWebhook } from "../src/sdk/index.js";

if (!HAS_CHROMIUM) console.log(SKIP_NOTE);

const SCREENSHOTS = process.env.CALSYNC_SCREENSHOTS === "1";
const docs = path.resolve(import.meta.dirname, "../docs");

const stay = (from: number, nights: number, summary: string): IcsEvent => ({
  uid: `${summary}-${from}`,
  start: day(from),
  end: day(from + nights),
  summary,
});

describe.skipIf(!HAS_CHROMIUM)("the dashboard in a browser", () => {
  let running: DashboardBrowser | undefined;
  let store: Store;
  let feeds: FeedServer;
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    running = await startDashboardBrowser("calsync-browser-");
    ({ store, feeds, server, browser } = running);
  }, 60_000);

  afterAll(async () => {
    await running?.close();
  });

  async function freshPage(options: { javaScriptEnabled?: boolean } = {}): Promise<Page> {
    context = await browser.newContext({ viewport: { width: 1440, height: 900 }, ...options });
    return context.newPage();
  }

  async function ownerWithPassword(name: string, email: string, password: string) {
    const owner = await store.createOwner(name, { email });
    await store.setOwnerPassword(owner.id, await hashPassword(password));
    return owner;
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${server.url}/properties`);
  }

  const callApi = (token: string) =>
    fetch(`${server.url}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": token } });

  it("takes an invited owner from the link to a token the API accepts, and revoking it gets 401 revoked_token", async () => {
    const owner = await store.createOwner("Ann Example", { email: "ann@example.com" });
    const invite = await issueInvite(store, owner.id, server.url);
    const page = await freshPage();

    await page.goto(invite.url);
    await page.getByLabel("New password").fill("correct horse battery");
    await page.getByRole("button", { name: "Set password" }).click();
    await page.waitForURL(`${server.url}/properties`);
    await page.getByText("Password set. Welcome, Ann Example!").waitFor();

    await page.getByRole("link", { name: "API tokens" }).click();
    await page.getByLabel("Token name").fill("backend");
    await page.getByRole("button", { name: "Create token" }).click();
    const token = (await page.getByTestId("new-token").textContent())?.trim() ?? "";
    expect(token).toMatch(/^cs_[0-9A-Za-z]{32}$/);
    // The copy button is the progressive part: dashboard.js un-hides it.
    await page.getByRole("button", { name: "Copy" }).waitFor({ state: "visible" });

    const ok = await callApi(token);
    expect(ok.status).toBe(200);

    await page.getByRole("row", { name: /backend/ }).getByRole("button", { name: "Revoke" }).click();
    await page.getByText(/Revoked "backend"/).waitFor();
    const refused = await callApi(token);
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([401, "revoked_token"]);

    // The link worked once; signing out and in again uses the chosen password.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${server.url}/sign-in`);
    await page.goto(invite.url);
    await page.getByRole("heading", { name: "This invite link does not work" }).waitFor();
    await signIn(page, "ANN@example.com", "correct horse battery");
    await context.close();
  }, 60_000);

  it("adds calendars, syncs with one broken feed showing the 207 details, and marks the double booking on the timeline", async () => {
    await ownerWithPassword("Bea Keller", "bea@example.com", "a long enough password");
    const owner = (await store.findOwnerByEmail("bea@example.com"))!;
    const airbnb = feeds.url("/loft/airbnb.ics", {
      body: buildIcs([stay(1, 3, "Reserved"), stay(8, 5, "Reserved"), stay(29, 3, "Airbnb (Not available)"), stay(38, 7, "Reserved"), stay(60, 4, "Reserved")]),
    });
    const vrbo = feeds.url("/loft/vrbo.ics", {
      body: buildIcs([stay(11, 4, "Reserved - Maria Lopez"), stay(19, 6, "Reserved - Tom Becker"), stay(49, 3, "Blocked"), stay(70, 7, "Reserved - Sofia Rossi")]),
    });
    const broken = feeds.url("/loft/booking.ics", { status: 503, body: "maintenance" });
    await otherProperties(owner.id);

    const page = await freshPage();
    await signIn(page, "bea@example.com", "a long enough password");
    await page.getByLabel("Name").fill("Sea View Loft");
    await page.getByRole("button", { name: "Add property" }).click();
    await page.getByRole("heading", { name: "Sea View Loft", level: 1 }).waitFor();

    // Add calendar previews the feed (nothing saved yet); Save calendar saves it.
    const previews = [
      [`${airbnb}?s=4f9d2c81b7e64a0f`, "airbnb", "Readable: a sync will import 4 bookings and 1 block."],
      [vrbo, "vrbo", "Readable: a sync will import 3 bookings and 1 block."],
      [`${broken}?t=9b1e77c2d4`, "booking", "This feed cannot be read right now: a sync would fail it with http_error."],
    ] as const;
    const loft = (await store.listProperties(owner.id)).find((p) => p.name === "Sea View Loft")!;
    for (const [saved, [feedUrl, channel, verdict]] of previews.entries()) {
      await page.getByLabel("Feed URL").fill(feedUrl);
      await page.getByLabel("Channel", { exact: true }).selectOption(channel);
      await page.getByRole("button", { name: "Add calendar" }).click();
      await page.getByRole("heading", { name: "Check this calendar before saving" }).waitFor();
      await page.getByText(verdict).waitFor();
      if (channel === "booking") await page.getByText("feed answered HTTP 503").waitFor();
      expect((await store.listCalendars({ propertyId: loft.id })).length).toBe(saved);
      await page.getByRole("button", { name: "Save calendar" }).click();
      await page.getByText(new RegExp(`Added the ${channel} calendar`)).waitFor();
    }

    await page.getByRole("button", { name: "Sync now" }).click();
    await page.getByRole("heading", { name: "Sync results" }).waitFor();
    const failedRow = page.getByRole("row", { name: /Sea View Loft.*booking/ });
    expect(await failedRow.textContent()).toMatch(/failed.*http_error.*HTTP 503.*feed answered HTTP 503/s);
    await page.getByText("207 Multi-Status").waitFor();
    await page.getByRole("heading", { name: "⚠ 1 double booking" }).waitFor();

    await page.getByRole("link", { name: "Properties" }).click();
    if (SCREENSHOTS) {
      await page.setViewportSize({ width: 1280, height: 600 });
      await page.screenshot({ path: path.join(docs, "dashboard-properties.png") });
    }
    await page.getByRole("link", { name: "Sea View Loft" }).click();
    await page.getByRole("link", { name: "Timeline" }).click();
    await page.setViewportSize({ width: 1740, height: 660 });
    await page.getByText("⚠ Double booking", { exact: true }).waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("1 double booking");
    if (SCREENSHOTS) await page.screenshot({ path: path.join(docs, "dashboard-timeline.png") });
    // Every page names one link "Properties": the navigation's.
    await page.getByRole("link", { name: "Properties" }).click();
    await page.waitForURL(`${server.url}/properties`);
    await context.close();
  }, 90_000);

  it("does not let a form on another port of the same host create a token for a signed-in owner", async () => {
    const owner = await ownerWithPassword("Dan Target", "dan@example.com", "dan's long password");
    const page = await freshPage();
    await signIn(page, "dan@example.com", "dan's long password");
    // Cookies ignore ports, so the browser sends the session cookie with this form: only the Origin
    // check and the CSRF token stand in the way.
    const attacker = await startFeedServer();
    attacker.setRoute("/prize.html", {
      headers: { "content-type": "text/html" },
      body: `<form method="post" action="${server.url}/settings/tokens"><input name="name" value="stolen"><input name="expiresInDays" value=""><button>Claim your prize</button></form>`,
    });
    try {
      await page.goto(attacker.url("/prize.html"));
      await page.getByRole("button", { name: "Claim your prize" }).click();
      await page.getByRole("heading", { name: "Form refused" }).waitFor();
      expect(await store.listTokens(owner.id)).toEqual([]);
    } finally {
      await attacker.close();
      await context.close();
    }
  }, 60_000);

  it("shows a feed's markup as text: no element made from it, no script run", async () => {
    const owner = await ownerWithPassword("Eve Escaped", "eve@example.com", "eve's long password");
    const property = await store.createProperty(owner.id, "Villa <b>Bold</b>");
    const summary = "<img src=x onerror=alert(1)>";
    await store.createCalendar({ propertyId: property.id, source: "vrbo", url: feeds.url("/xss/vrbo.ics", { body: buildIcs([stay(2, 3, summary)]) }) });
    const page = await freshPage();
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await signIn(page, "eve@example.com", "eve's long password");
    await page.getByRole("link", { name: "Villa <b>Bold</b>" }).click();
    await page.getByRole("button", { name: "Sync now" }).click();
    await page.getByRole("heading", { name: "Sync results" }).waitFor();
    await page.goto(`${server.url}/properties/${property.id}/timeline`);
    await page.getByText(summary).first().waitFor();
    expect(await page.locator("main img, main b").count()).toBe(0);
    expect(dialogs).toEqual([]);
    await context.close();
  }, 60_000);

  it("works without JavaScript: sign-in, a token shown once, no copy button, a calendar previewed, cancelled and saved", async () => {
    const owner = await ownerWithPassword("Cem Noscript", "cem@example.com", "another long password");
    const property = await store.createProperty(owner.id, "Quiet Barn");
    const feedUrl = feeds.url("/noscript/airbnb.ics", { body: buildIcs([stay(5, 2, "Reserved")]) });
    const page = await freshPage({ javaScriptEnabled: false });
    await signIn(page, "cem@example.com", "another long password");
    await page.getByRole("link", { name: "API tokens" }).click();
    await page.getByLabel("Token name").fill("cron");
    await page.getByRole("button", { name: "Create token" }).click();
    expect((await page.getByTestId("new-token").textContent())?.trim()).toMatch(/^cs_/);
    expect(await page.getByRole("button", { name: "Copy" }).count()).toBe(0);

    await page.goto(`${server.url}/properties/${property.id}`);
    const previewFeed = async () => {
      await page.getByLabel("Feed URL").fill(feedUrl);
      await page.getByRole("button", { name: "Add calendar" }).click();
      await page.getByText("Readable: a sync will import 1 booking and 0 blocks.").waitFor();
    };
    await previewFeed();
    await page.getByRole("link", { name: "Cancel" }).click();
    await page.getByText("No calendars yet.").waitFor();
    expect(await store.listCalendars({ propertyId: property.id })).toEqual([]);
    await previewFeed();
    await page.getByRole("button", { name: "Save calendar" }).click();
    await page.getByText("Added the other calendar.").waitFor();
    expect((await store.listCalendars({ propertyId: property.id })).map((c) => c.url)).toEqual([feedUrl]);
    await context.close();
  }, 60_000);

  it("adds a webhook (its secret shown once), and after Sync now the receiver verifies a signed reservation.created", async () => {
    const owner = await ownerWithPassword("Dora Hooks", "dora@example.com", "a long hooks password");
    const property = await store.createProperty(owner.id, "Hook House");
    await store.createCalendar({ propertyId: property.id, source: "airbnb", url: feeds.url("/hooks/airbnb.ics", { body: buildIcs([stay(4, 3, "Reserved")]) }) });
    const receiver = await startWebhookReceiver();
    try {
      const page = await freshPage();
      await signIn(page, "dora@example.com", "a long hooks password");
      await page.getByRole("link", { name: "Webhooks" }).click();
      await page.getByLabel("Endpoint URL").fill(receiver.url);
      await page.getByLabel("reservation.created").check();
      await page.getByRole("button", { name: "Add webhook" }).click();
      const secret = (await page.getByTestId("new-webhook-secret").textContent())?.trim() ?? "";
      expect(secret).toMatch(/^whsec_/);
      await page.getByRole("link", { name: "Webhooks" }).click();
      expect(await page.getByTestId("new-webhook-secret").count()).toBe(0);

      await page.getByRole("link", { name: "Properties" }).click();
      await page.getByRole("button", { name: "Sync now" }).click();
      await page.getByRole("heading", { name: "Sync results" }).waitFor();
      await receiver.arrivals(1);
      const [delivery] = receiver.received;
      const event = verifyWebhook(delivery!.body, delivery!.headers as Record<string, string>, secret);
      expect(event).toMatchObject({ type: "reservation.created", data: { reservation: { propertyName: "Hook House", arrival: day(4), departure: day(7) } } });

      await page.getByRole("link", { name: "Webhooks" }).click();
      await page.getByRole("row", { name: /reservation\.created/ }).first().waitFor();
      await page.getByRole("row", { name: /127\.0\.0\.1/ }).getByRole("button", { name: "Remove" }).click();
      await page.getByText("No webhooks yet.").waitFor();
      await context.close();
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it("fits a phone and a laptop: no page scrolls sideways, tables stack or scroll inside their cards, the whole timeline scrolls inside its card", async () => {
    const owner = await ownerWithPassword("Fay Narrow", "fay@example.com", "fay's long password");
    const property = await store.createProperty(owner.id, "Narrow House");
    const stays = [stay(2, 4, "Reserved - Maria Lopez"), stay(40, 5, "Reserved"), stay(85, 4, "Reserved - Last Guest")];
    await store.createCalendar({ propertyId: property.id, source: "airbnb", url: feeds.url("/narrow/airbnb.ics?s=4f9d2c81b7e64a0f", { body: buildIcs(stays) }) });
    await store.createCalendar({ propertyId: property.id, source: "booking", url: feeds.url("/narrow/booking.ics", { status: 503, body: "maintenance" }) });
    await store.createWebhookEndpoint({ ownerId: owner.id, url: "https://example.com/calsync", events: ["*"], secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" });
    const page = await freshPage();
    await signIn(page, "fay@example.com", "fay's long password");
    await page.getByRole("button", { name: "Sync now" }).click();
    await page.getByRole("heading", { name: "Sync results" }).waitFor();

    // What a person scrolling with a wheel or a finger can reach; a box cut off with overflow: hidden scrolls neither.
    const lastColumnReachable = async (box: string, last: string) => {
      const wrap = page.locator(box);
      await wrap.hover();
      await page.mouse.wheel(5000, 0);
      await page.waitForTimeout(300);
      const [outer, inner] = [await wrap.boundingBox(), await page.locator(last).boundingBox()];
      return inner!.x + inner!.width <= outer!.x + outer!.width + 1;
    };
    const pageScrollsSideways = () => page.evaluate<boolean>("document.documentElement.scrollWidth > document.documentElement.clientWidth");

    await page.setViewportSize({ width: 390, height: 800 });
    expect(await pageScrollsSideways()).toBe(false);
    expect(await lastColumnReachable(".results", "table.results thead th:last-child")).toBe(true);
    for (const path of ["/properties", `/properties/${property.id}`, "/settings/tokens", "/webhooks", "/settings/profile", "/settings/notifications"]) {
      await page.goto(`${server.url}${path}`);
      expect({ path, sideways: await pageScrollsSideways() }).toEqual({ path, sideways: false });
      // Every navigation link, the owner's name (the way to Profile and its password change) and Sign out stay on screen.
      for (const name of ["Properties", "API tokens", "Webhooks", "Settings", "Notifications", "Fay Narrow", "Sign out"]) {
        const box = (await page.getByRole(name === "Sign out" ? "button" : "link", { name, exact: true }).first().boundingBox({ timeout: 2000 }))!;
        expect({ path, name, inside: box.x >= 0 && box.x + box.width <= 390 }).toEqual({ path, name, inside: true });
      }
    }
    // The calendars, tokens and webhooks tables stack their rows on a phone: every cell is on screen, none needs a scroll.
    await page.goto(`${server.url}/properties/${property.id}`);
    for (const cell of ["Remove booking calendar", "http_error"]) {
      const locator = cell.startsWith("Remove") ? page.getByRole("button", { name: cell }) : page.locator("table.data code", { hasText: cell });
      const box = (await locator.boundingBox())!;
      expect({ cell, onScreen: box.x >= 0 && box.x + box.width <= 390 }).toEqual({ cell, onScreen: true });
    }

    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${server.url}/properties/${property.id}/timeline`);
      expect({ width, sideways: await pageScrollsSideways() }).toEqual({ width, sideways: false });
      expect({ width, ninetiethNight: await lastColumnReachable(".timeline-wrap", "tr.days th:last-child") }).toEqual({ width, ninetiethNight: true });
    }

    // The add-webhook form reads as one block: the events follow the URL field, with no empty band between.
    await page.goto(`${server.url}/webhooks`);
    const field = (await page.getByLabel("Endpoint URL").boundingBox())!;
    const events = (await page.getByRole("group", { name: /Events/ }).boundingBox())!;
    expect(events.y - (field.y + field.height)).toBeLessThan(40);
    await context.close();
  }, 60_000);

  // Two more properties, so the properties page (and its screenshot) shows what an owner sees.
  async function otherProperties(ownerId: string): Promise<void> {
    const cottage = await store.createProperty(ownerId, "Harbour Cottage");
    const cabin = await store.createProperty(ownerId, "Mountain Cabin");
    const add = (propertyId: string, source: "airbnb" | "booking" | "vrbo" | "google", file: string, events: IcsEvent[]) =>
      store.createCalendar({ propertyId, source, url: feeds.url(`/${file}`, { body: buildIcs(events) }) });
    await add(cottage.id, "airbnb", "cottage/airbnb.ics", [stay(0, 3, "Reserved"), stay(15, 4, "Reserved")]);
    await add(cottage.id, "booking", "cottage/booking.ics", [stay(5, 3, "CLOSED - Not available"), stay(22, 4, "CLOSED - Not available")]);
    await add(cabin.id, "vrbo", "cabin/vrbo.ics", [stay(3, 7, "Reserved - Jonas Berg")]);
    await add(cabin.id, "google", "cabin/google.ics", [stay(12, 2, "Owner stay")]);
  }
});
