// Every table of the dashboard in Chromium (issue 36): at 1280 px each header cell stands over its column
// (its x-range is the x-range of that column's cells, colspans counted), and so at 390 px for the tables that
// scroll sideways; the tables that stack on a phone (a row a block) show each cell's column as its label,
// beside the value and not over it, with the header row out of the way. Checked for an owner with one of
// everything and for a busy one (many rows, long texts, a failing calendar, deliveries), on every page with a table.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../src/server/dashboard/passwords.js";
import type { RunningServer } from "../src/server/index.js";
import type { Store } from "../src/store/types.js";
import { HAS_CHROMIUM, SKIP_NOTE } from "./helpers/chromium.js";
import { startDashboardBrowser, type DashboardBrowser } from "./helpers/dashboard-browser.js";
import type { FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";

if (!HAS_CHROMIUM) console.log(SKIP_NOTE);

const PASSWORD = "a password for tables";
const WIDTHS = [1280, 390] as const;

/** What the check found on one page: how many tables it looked at, and what was out of place. */
interface TableReport {
  tables: number;
  problems: string[];
}

// Run in the page (the tests are compiled without the DOM library, so it is a string). Grid tables: the header
// row with the most cells gives the columns; every other row's cells, spans counted, must lie exactly under
// them (1 px of rounding allowed) and use them all. Stacked tables (body rows drawn as blocks): the header
// row takes no room, and every shown cell is labelled with its column's header text, left of its value.
const CHECK_TABLES = `(() => {
  const near = (a, b) => Math.abs(a - b) <= 1;
  const problems = [];
  let tables = 0;
  const hiddenOnly = (th) => { const hidden = th.querySelector(".visually-hidden"); return !!hidden && hidden.textContent.trim() === th.textContent.trim(); };
  for (const table of document.querySelectorAll("main table")) {
    tables++;
    const name = (table.getAttribute("class") || "table") + " " + tables;
    const head = [...table.tHead.rows];
    const body = [...table.tBodies].flatMap((b) => [...b.rows]);
    const base = head.reduce((a, r) => (r.cells.length > a.cells.length ? r : a));
    const columns = [...base.cells];
    if (body.length === 0) { problems.push(name + ": no rows"); continue; }
    const stacked = getComputedStyle(body[0]).display === "block";
    if (!stacked) {
      const edges = columns.map((th) => th.getBoundingClientRect());
      const box = table.getBoundingClientRect();
      if (!near(edges[0].left, box.left) || !near(edges.at(-1).right, box.right)) problems.push(name + ": the header row spans " + Math.round(edges[0].left) + "–" + Math.round(edges.at(-1).right) + ", the table " + Math.round(box.left) + "–" + Math.round(box.right));
      for (const [r, row] of [...head, ...body].entries()) {
        if (row === base) continue;
        let j = 0;
        for (const cell of row.cells) {
          const first = edges[j], last = edges[j + cell.colSpan - 1];
          const at = cell.getBoundingClientRect();
          if (!first || !last) problems.push(name + " row " + r + ": a cell past the last column");
          else if (!near(at.left, first.left) || !near(at.right, last.right)) {
            problems.push(name + " row " + r + " column " + j + " (" + columns[j].textContent.trim() + "): cell " + Math.round(at.left) + "–" + Math.round(at.right) + ", header " + Math.round(first.left) + "–" + Math.round(last.right));
          }
          j += cell.colSpan;
        }
        if (j !== edges.length) problems.push(name + " row " + r + ": " + j + " columns, the header has " + edges.length);
      }
      continue;
    }
    const headBox = table.tHead.getBoundingClientRect();
    if (headBox.width > 1 || headBox.height > 1) problems.push(name + ": the header row is drawn over stacked rows");
    const wrap = table.parentElement.getBoundingClientRect();
    if (table.getBoundingClientRect().right > wrap.right + 1) problems.push(name + ": wider than its card");
    for (const [r, row] of body.entries()) {
      const rowBox = row.getBoundingClientRect();
      for (const [j, cell] of [...row.cells].entries()) {
        const style = getComputedStyle(cell);
        if (style.display === "none") continue;
        const th = columns[j];
        const before = getComputedStyle(cell, "::before");
        const label = before.content === "none" || before.content === "normal" ? "" : before.content.replace(/^"|"$/g, "");
        const want = hiddenOnly(th) ? "" : th.textContent.trim();
        if (label !== want) problems.push(name + " row " + r + " cell " + j + ": labelled " + JSON.stringify(label) + ", its column is " + JSON.stringify(want));
        if (label && parseFloat(before.left) + parseFloat(before.width) > parseFloat(style.paddingLeft)) problems.push(name + " row " + r + " cell " + j + ": the label runs into the value");
        const at = cell.getBoundingClientRect();
        if (at.left < rowBox.left - 1 || at.right > rowBox.right + 1) problems.push(name + " row " + r + " cell " + j + ": outside its row");
      }
    }
  }
  return { tables, problems };
})()`;

describe.skipIf(!HAS_CHROMIUM)("dashboard tables: header cells over their columns", () => {
  let running: DashboardBrowser | undefined;
  let store: Store;
  let feeds: FeedServer;
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    running = await startDashboardBrowser("calsync-tables-");
    ({ store, feeds, server, browser } = running);
  }, 60_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await running?.close();
  });

  async function signedIn(email: string, width: number): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${server.url}/properties`);
    return page;
  }

  async function owner(name: string, email: string) {
    const created = await store.createOwner(name, { email });
    await store.setOwnerPassword(created.id, await hashPassword(PASSWORD));
    return created;
  }

  /** Checks the tables of the page as it is now; every page named here has at least one. */
  async function check(page: Page, label: string): Promise<string[]> {
    const report = await page.evaluate<TableReport>(CHECK_TABLES);
    return report.tables === 0 ? [`${label}: no table found`] : report.problems.map((p) => `${label}: ${p}`);
  }

  async function checkPages(email: string, propertyId: string): Promise<string[]> {
    const found: string[] = [];
    for (const width of WIDTHS) {
      const page = await signedIn(email, width);
      await page.goto(`${server.url}/properties/${propertyId}`);
      await page.getByRole("button", { name: "Sync now" }).click();
      await page.getByRole("heading", { name: "Sync results" }).waitFor();
      found.push(...(await check(page, `sync results @${width}`)));
      for (const target of [`/properties/${propertyId}`, `/properties/${propertyId}/timeline`, "/settings/tokens", "/settings/profile", "/webhooks"]) {
        await page.goto(`${server.url}${target}`);
        found.push(...(await check(page, `${target} @${width}`)));
      }
    }
    return found;
  }

  it("lines up the tables of an owner with one calendar, one token and one webhook", async () => {
    const one = await owner("Olga One", "olga@example.com");
    const cabin = await store.createProperty(one.id, "Cabin");
    await store.createCalendar({ propertyId: cabin.id, source: "airbnb", url: feeds.url("/one/airbnb.ics", { body: buildIcs([]) }) });
    await store.createToken({ ownerId: one.id, name: "backend", prefix: "cs_live_a", hash: "a".repeat(64), expiresAt: null, scopes: ["read"] });
    await store.createWebhookEndpoint({ ownerId: one.id, url: "https://example.com/hook", events: ["*"], secret: "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" });
    expect(await checkPages("olga@example.com", cabin.id)).toEqual([]);
  }, 120_000);

  it("lines up the tables of a busy owner: long texts, a failing calendar, revoked tokens, deliveries", async () => {
    const busy = await owner("Bea Busy-Keller", "bea@example.com");
    const loft = await store.createProperty(busy.id, "Sea View Loft with a rather long name");
    const stays = (prefix: string, starts: number[]) => buildIcs(starts.map((s) => ({ uid: `${prefix}-${s}`, start: day(s), end: day(s + 3), summary: `Reserved - ${prefix} guest ${s}` })));
    await store.createCalendar({ propertyId: loft.id, source: "airbnb", url: feeds.url("/busy/airbnb.ics?s=4f9d2c81b7e64a0f5e6d7c8b9a0f1e2d", { body: stays("airbnb", [1, 8, 30]) }) });
    await store.createCalendar({ propertyId: loft.id, source: "vrbo", url: feeds.url("/busy/vrbo.ics", { body: stays("vrbo", [9, 40]) }) });
    await store.createCalendar({ propertyId: loft.id, source: "booking", url: feeds.url("/busy/booking.ics", { status: 503, body: "down for maintenance" }) });
    for (let i = 0; i < 4; i++) {
      const token = await store.createToken({ ownerId: busy.id, name: `integration number ${i} for the channel manager`, prefix: `cs_live_${i}`, hash: String(i).repeat(64), expiresAt: new Date(Date.now() + 86_400_000 * (i + 1)), scopes: i % 2 ? ["read", "write"] : ["sync", "read", "write"] });
      if (i === 3) await store.revokeToken(token.id, new Date());
    }
    await store.createWebhookEndpoint({ ownerId: busy.id, url: "https://example.com/calsync/hooks/with/a/long/path?token=abc", events: ["*"], secret: "whsec_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB" });
    await store.createWebhookEndpoint({ ownerId: busy.id, url: "https://example.org/h", events: ["booking.conflict", "calendar.failed"], secret: "whsec_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC" });
    const found = await checkPages("bea@example.com", loft.id);
    // The syncs above queued deliveries: the deliveries table was among those checked.
    expect((await store.listWebhookDeliveries({ ownerId: busy.id, limit: 5 })).length).toBeGreaterThan(0);
    expect(found).toEqual([]);
  }, 180_000);
});
