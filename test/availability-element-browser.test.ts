// <calsync-availability> (CONTRACT §15) in headless Chromium, on a website of ANOTHER origin (a second
// loopback port) whose CSP lets scripts and fetches reach the calsync origin only and allows no inline style,
// in a German page (`lang="de"`) read by a browser set to US English in Los Angeles. The server's clock is
// fixed, so the months shown (and docs/availability-element.png, written with CALSYNC_SCREENSHOTS=1) never move.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { toNodeHandler } from "h3/node";
import type { Browser, BrowserContext, ConsoleMessage, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { createApp } from "../src/server/index.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { HAS_CHROMIUM, launchChromium, SKIP_NOTE } from "./helpers/chromium.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs } from "./helpers/ics.js";

if (!HAS_CHROMIUM) console.log(SKIP_NOTE);

const SCREENSHOTS = process.env.CALSYNC_SCREENSHOTS === "1";
const SCREENSHOT = path.resolve(import.meta.dirname, "../docs/availability-element.png");
/** The server's clock: 10 March 2030, noon in Berlin, the property's zone. */
const NOW = new Date("2030-03-10T11:00:00Z");
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** The page's getComputedStyle, typed here: the tests are compiled without the DOM library. */
type Styled = { getComputedStyle(node: unknown): { backgroundColor: string; color: string } };

interface Heard {
  errors: ConsoleMessage[];
  pageErrors: Error[];
}

describe.skipIf(!HAS_CHROMIUM)("<calsync-availability> on another origin's page", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "calsync-element-"));
  let store: Store;
  let feeds: FeedServer;
  let site: FeedServer;
  let calsync: http.Server;
  let calsyncOrigin: string;
  let deadOrigin: string;
  let token: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    store = await openStore(path.join(dir, "calsync.db"));
    const owner = await store.createOwner("Ann");
    const loft = await store.createProperty(owner.id, "Ferienwohnung Seeblick", "Europe/Berlin");
    feeds = await startFeedServer();
    const stays = [
      { uid: "a", start: "2030-03-12", end: "2030-03-15", summary: "Jane Doe" },
      { uid: "b", start: "2030-03-28", end: "2030-04-02", summary: "Max Muster" },
      { uid: "c", start: "2030-04-20", end: "2030-04-22", summary: "Eve" },
      { uid: "d", start: "2030-05-05", end: "2030-05-07", summary: "Bob" },
      // Beyond the first year the element loads: it asks for the next one when the visitor gets there.
      { uid: "e", start: "2031-04-10", end: "2031-04-12", summary: "Late guest" },
    ];
    await store.createCalendar({ propertyId: loft.id, source: "airbnb", url: feeds.url("/loft.ics", { body: buildIcs(stays) }) });
    expect((await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true })).ok).toBe(true);
    token = (await store.propertyFeedToken(loft.id))!;

    calsync = http.createServer(toNodeHandler(createApp({ store, now: () => NOW, rateLimiter: null })));
    calsyncOrigin = await listen(calsync);
    // A port nothing listens on: the "server cannot be reached" case.
    const closed = http.createServer();
    deadOrigin = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));

    site = await startFeedServer();
    site.route("/favicon.ico", { status: 204 });
    site.route("/site.css", { body: SITE_CSS, headers: { "content-type": "text/css" } });
    site.route("/listing.html", (req, res) => {
      const query = new URL(req.url!, "http://site").searchParams;
      const origin = query.get("origin") === "dead" ? deadOrigin : calsyncOrigin;
      const src = `${origin}/availability/${query.get("token") ?? token}.json`;
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        // Scripts and fetches only from calsync; styles only from the site's own files; no inline anything.
        "content-security-policy":
          `default-src 'none'; script-src ${calsyncOrigin}; connect-src ${calsyncOrigin} ${deadOrigin}; ` +
          "style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; require-trusted-types-for 'script'",
      });
      res.end(`<!doctype html>
<html lang="de"><head><meta charset="utf-8"><title>Ferienwohnung Seeblick</title>
<link rel="stylesheet" href="/site.css">
<script type="module" src="${calsyncOrigin}/embed/availability.js"></script></head>
<body><main><h1>Ferienwohnung Seeblick</h1>
<calsync-availability src="${src}" months="2"${query.get("wide") ? ' class="wide"' : ""}></calsync-availability>
</main></body></html>`);
    });
    browser = await launchChromium();
  }, 60_000);

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (calsync ? calsync.close(resolve) : resolve(undefined)));
    await site?.close();
    await feeds?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The listing page in a fresh US-English, Los Angeles browser, with what its console said. */
  async function listing(query = "", width = 900): Promise<{ page: Page; heard: Heard; asked: string[] }> {
    const context = await browser.newContext({ locale: "en-US", timezoneId: "America/Los_Angeles", viewport: { width, height: 700 } });
    contexts.push(context);
    const page = await context.newPage();
    const heard: Heard = { errors: [], pageErrors: [] };
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") heard.errors.push(message);
    });
    page.on("pageerror", (error) => heard.pageErrors.push(error));
    const asked: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/availability/")) asked.push(new URL(request.url()).search);
    });
    await page.goto(`${site.baseUrl}/listing.html${query}`);
    return { page, heard, asked };
  }

  const captions = (page: Page) => page.locator("calsync-availability caption").allTextContents();

  it("draws two German month tables, weeks from Monday, every day named free or booked, under the site's strict CSP", async () => {
    const { page, heard, asked } = await listing();
    await expect.poll(() => captions(page)).toEqual(["März 2030", "April 2030"]);
    expect(await page.locator("calsync-availability table").count()).toBe(2);
    // One request: the feed's default year from the property's today.
    expect(asked).toEqual([""]);
    const heads = page.locator("calsync-availability table").first().locator("th");
    expect([await heads.first().getAttribute("abbr"), await heads.last().getAttribute("abbr")]).toEqual(["Montag", "Sonntag"]);

    // Nights of 12–14 March are taken; the 15th is the departure morning and free; a stay runs over the month's end.
    for (const name of ["Dienstag, 12. März 2030: belegt", "Donnerstag, 14. März 2030: belegt", "Montag, 1. April 2030: belegt", "Samstag, 20. April 2030: belegt"]) {
      expect(await page.getByRole("cell", { name, exact: true }).count(), name).toBe(1);
    }
    for (const name of ["Freitag, 15. März 2030: frei", "Montag, 11. März 2030: frei", "Dienstag, 2. April 2030: frei", "Sonntag, 10. März 2030: frei"]) {
      expect(await page.getByRole("cell", { name, exact: true }).count(), name).toBe(1);
    }
    // Before the property's today nothing can be booked.
    expect(await page.getByRole("cell", { name: "Samstag, 9. März 2030: vergangen, nicht verfügbar", exact: true }).count()).toBe(1);
    expect(await page.locator('calsync-availability td[aria-current="date"]').getAttribute("data-date")).toBe("2030-03-10");
    // 1 March 2030 is a Friday: four blank cells before it in a week that starts on Monday.
    expect(await page.locator("calsync-availability table").first().locator("tbody tr").first().locator('td[data-date]').first().getAttribute("data-date")).toBe("2030-03-01");
    expect(await page.locator("calsync-availability table").first().locator("tbody tr").first().locator("td").count()).toBe(7);
    expect(await page.locator("calsync-availability table").first().locator("tbody tr").first().locator("td:not([data-date])").count()).toBe(4);

    // The adopted stylesheet applies under the CSP, and the site styles the element through ::part().
    const booked = page.locator('calsync-availability td[data-date="2030-03-12"]');
    expect(await booked.evaluate((cell) => (globalThis as unknown as Styled).getComputedStyle(cell).backgroundColor)).toBe("rgb(255, 235, 233)");
    expect(await page.locator("calsync-availability caption").first().evaluate((c) => (globalThis as unknown as Styled).getComputedStyle(c).color)).toBe("rgb(0, 61, 92)");
    expect(await page.locator('calsync-availability td[data-date="2030-03-11"]').evaluate((c) => (globalThis as unknown as Styled).getComputedStyle(c).backgroundColor)).toBe("rgb(220, 245, 236)");

    if (SCREENSHOTS) {
      await page.locator("calsync-availability").screenshot({ path: SCREENSHOT, animations: "disabled", caret: "hide" });
    }
    expect(heard.pageErrors).toEqual([]);
    expect(heard.errors.map((m) => `${m.text()} ${m.location().url}`)).toEqual([]);
  });

  it("changes months from the keyboard, and loads the next year when the visitor gets there", async () => {
    const { page, heard, asked } = await listing();
    const next = page.getByRole("button", { name: "Nächster Monat" });
    const previous = page.getByRole("button", { name: "Vorheriger Monat" });
    await expect.poll(() => captions(page)).toEqual(["März 2030", "April 2030"]);
    expect(await previous.getAttribute("aria-disabled")).toBe("true");

    await next.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => captions(page)).toEqual(["April 2030", "Mai 2030"]);
    expect(await page.getByRole("cell", { name: "Sonntag, 5. Mai 2030: belegt", exact: true }).count()).toBe(1);
    expect(await next.evaluate((button) => button.matches(":focus"))).toBe(true);

    await page.keyboard.press("Shift+Tab");
    expect(await previous.evaluate((button) => button.matches(":focus"))).toBe(true);
    await page.keyboard.press("Space");
    await expect.poll(() => captions(page)).toEqual(["März 2030", "April 2030"]);
    await page.keyboard.press("Space"); // already the first month: nothing before the property's today
    expect(await captions(page)).toEqual(["März 2030", "April 2030"]);

    await next.focus();
    for (let i = 0; i < 13; i++) await page.keyboard.press("Enter");
    await expect.poll(() => captions(page)).toEqual(["April 2031", "Mai 2031"]);
    await expect.poll(() => page.getByRole("cell", { name: "Donnerstag, 10. April 2031: belegt", exact: true }).count()).toBe(1);
    expect(await page.getByRole("cell", { name: "Samstag, 12. April 2031: frei", exact: true }).count()).toBe(1);
    // The first year, then the next one from where it ended, once.
    expect(asked).toEqual(["", "?from=2031-03-10&to=2032-03-09"]);
    expect(heard.pageErrors).toEqual([]);
    expect(heard.errors.map((m) => `${m.text()} ${m.location().url}`)).toEqual([]);
  });

  it("says in German that the calendar does not exist for an unknown token, and that it cannot be reached when the server is down", async () => {
    const bad = await listing("?token=NoSuchToken123");
    const message = bad.page.locator("calsync-availability").getByRole("status");
    await expect.poll(() => message.textContent()).toContain("Diesen Belegungskalender gibt es nicht");
    expect(await bad.page.locator("calsync-availability table").count()).toBe(0);
    expect(await bad.page.locator("calsync-availability button").first().isVisible()).toBe(false);
    expect(await bad.page.locator("calsync-availability button").last().isVisible()).toBe(false);
    // Chromium itself logs the 404 of the fetch (no script can silence that line); the element adds nothing.
    expect(bad.heard.pageErrors).toEqual([]);
    expect(bad.heard.errors.filter((m) => !isNetworkLog(m, "404"))).toEqual([]);

    const down = await listing("?origin=dead");
    await expect.poll(() => down.page.locator("calsync-availability").getByRole("status").textContent()).toContain(
      "Der Belegungskalender kann gerade nicht geladen werden",
    );
    expect(down.heard.pageErrors).toEqual([]);
    expect(down.heard.errors.filter((m) => !isNetworkLog(m, "ERR_CONNECTION_REFUSED"))).toEqual([]);
  });

  /** Left and right edges of the element's buttons and month tables, as drawn. */
  async function edges(page: Page) {
    const box = async (locator: ReturnType<Page["locator"]>) => {
      const b = (await locator.boundingBox())!;
      return { left: Math.round(b.x), right: Math.round(b.x + b.width), top: Math.round(b.y) };
    };
    const tables = page.locator("calsync-availability table");
    return {
      previous: await box(page.getByRole("button", { name: "Vorheriger Monat" })),
      next: await box(page.getByRole("button", { name: "Nächster Monat" })),
      months: await Promise.all((await tables.all()).map(box)),
    };
  }

  it("keeps Previous and Next at the ends of the months on a wide page (1280 px) and on a phone (390 px)", async () => {
    const wide = await listing("?wide=1", 1280);
    await expect.poll(() => captions(wide.page)).toEqual(["März 2030", "April 2030"]);
    const at1280 = await edges(wide.page);
    // Two months side by side; the buttons at the outer ends of their captions, not at the page's far right.
    expect(at1280.months[1]!.top).toBe(at1280.months[0]!.top);
    expect(Math.abs(at1280.previous.left - at1280.months[0]!.left)).toBeLessThanOrEqual(2);
    expect(Math.abs(at1280.next.right - at1280.months[1]!.right)).toBeLessThanOrEqual(2);

    const phone = await listing("?wide=1", 390);
    await expect.poll(() => captions(phone.page)).toEqual(["März 2030", "April 2030"]);
    const at390 = await edges(phone.page);
    // A month a row: the buttons at the ends of the first one.
    expect(at390.months[1]!.top).toBeGreaterThan(at390.months[0]!.top);
    expect(Math.abs(at390.previous.left - at390.months[0]!.left)).toBeLessThanOrEqual(2);
    expect(Math.abs(at390.next.right - at390.months[0]!.right)).toBeLessThanOrEqual(2);
    // The legend (three items now, "past" among them) wraps within the phone's width.
    for (const item of await phone.page.locator("calsync-availability li").all()) {
      const b = (await item.boundingBox())!;
      expect(b.x + b.width).toBeLessThanOrEqual(390);
    }
  });

  it("draws a month of 5 weeks beside one of 6 with cells of one size, and names past days in the legend", async () => {
    const { page } = await listing("?wide=1", 1280);
    const next = page.getByRole("button", { name: "Nächster Monat" });
    await expect.poll(() => captions(page)).toEqual(["März 2030", "April 2030"]);
    for (let i = 0; i < 5; i++) await next.click();
    // August 2030 has 5 weeks from Monday, September 2030 (from a Sunday the 1st) 6.
    await expect.poll(() => captions(page)).toEqual(["August 2030", "September 2030"]);
    const tables = page.locator("calsync-availability table");
    expect([await tables.nth(0).locator("tbody tr").count(), await tables.nth(1).locator("tbody tr").count()]).toEqual([5, 6]);
    const heights = await page.locator("calsync-availability td[data-date]").evaluateAll((cells) => [...new Set(cells.map((c) => Math.round((c as unknown as { getBoundingClientRect(): { height: number } }).getBoundingClientRect().height)))]);
    expect(heights).toHaveLength(1);
    const legend = await page.locator("calsync-availability li").allTextContents();
    expect(legend).toEqual(["frei", "belegt", "vergangen, nicht verfügbar"]);
  });

  it("has no serious or critical accessibility violation (axe-core)", async () => {
    const { page } = await listing();
    await expect.poll(() => captions(page)).toEqual(["März 2030", "April 2030"]);
    // Evaluated through the DevTools protocol: the site's CSP (rightly) lets no other script in.
    await page.evaluate(AXE_SOURCE);
    const result = await page.evaluate(async () => {
      type Rule = { id: string; impact: string | null; nodes: unknown[] };
      const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: Rule[]; passes: Rule[] }> } }).axe;
      const { violations, passes } = await axe.run({ include: [["calsync-availability"]] }, { resultTypes: ["violations", "passes"] });
      const summary = (rules: Rule[]) => rules.map((r) => ({ id: r.id, impact: r.impact, nodes: r.nodes.length }));
      return { violations: summary(violations), passes: summary(passes) };
    });
    // axe looked inside the shadow root: the colour of every day of both months was checked.
    expect(result.passes.find((r) => r.id === "color-contrast")?.nodes).toBeGreaterThanOrEqual(61);
    const violations = result.violations;
    expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);
  });
});

/** The site's own stylesheet: its font, and the element themed through custom properties and ::part(). */
const SITE_CSS = `body { font-family: "DejaVu Sans", sans-serif; margin: 24px; color: #1c2b33; background: #fff; }
calsync-availability { --calsync-available-background: #dcf5ec; --calsync-available-color: #0b5a3c; max-width: 640px; }
calsync-availability.wide { max-width: none; }
calsync-availability::part(caption) { color: #003d5c; }
`;

/** Chromium's own line about a failed request (not the page's doing). */
function isNetworkLog(message: ConsoleMessage, reason: string): boolean {
  return message.type() === "error" && message.text().startsWith("Failed to load resource") && message.text().includes(reason);
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
