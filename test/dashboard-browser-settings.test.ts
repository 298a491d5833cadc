// The dashboard in headless Chromium (CONTRACT §9): the seed's path to a token, Settings → Profile →
// API tokens → create → copy; and a session cookie planted by a page on another loopback port, which
// signs the owner out instead of switching them into the planter's account.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../src/server/dashboard/passwords.js";
import { startServer, type RunningServer } from "../src/server/index.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { HAS_CHROMIUM, launchChromium, SKIP_NOTE } from "./helpers/chromium.js";
import { pageClient, signIn as signInByForm } from "./helpers/dashboard-client.js";
import { startFeedServer } from "./helpers/feed-server.js";

if (!HAS_CHROMIUM) console.log(SKIP_NOTE);

const PASSWORD = "a settings password";

describe.skipIf(!HAS_CHROMIUM)("settings and sessions in a browser", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "calsync-settings-"));
  let store: Store;
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    store = await openStore(path.join(dir, "calsync.db"));
    server = await startServer({ store, host: "127.0.0.1", port: 0, log: () => {} });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.close({ graceMs: 2000 });
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function owner(name: string, email: string) {
    const created = await store.createOwner(name, { email });
    await store.setOwnerPassword(created.id, await hashPassword(PASSWORD));
    return created;
  }

  async function signedInPage(email: string, options: Parameters<Browser["newContext"]>[0] = {}): Promise<{ page: Page; context: BrowserContext }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${server.url}/properties`);
    return { page, context };
  }

  const callApi = (token: string) => fetch(`${server.url}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": token } });

  it("follows the seed's words: Settings, then Profile, then its API tokens section; creates a token, copies it, revokes it", async () => {
    const ann = await owner("Ann Seed", "ann.seed@example.com");
    // 127.0.0.1 is a secure context, so the Copy button may write the clipboard; the test reads it back.
    const { page } = await signedInPage("ann.seed@example.com", { permissions: ["clipboard-read", "clipboard-write"] });

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
    await page.waitForURL(`${server.url}/settings/profile`);
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Profile" }).click();
    await page.getByRole("heading", { name: "Profile", level: 1 }).waitFor();
    const section = page.getByRole("region", { name: "API tokens" });
    await section.getByRole("heading", { name: "API tokens" }).waitFor();
    expect(await section.getByText("No tokens yet.").count()).toBe(1);

    await section.getByLabel("Token name").fill("website");
    await section.getByRole("button", { name: "Create token" }).click();
    // The answer is Profile again, the new token first on it.
    await page.getByRole("heading", { name: "Profile", level: 1 }).waitFor();
    const token = (await page.getByTestId("new-token").textContent())?.trim() ?? "";
    expect(token).toMatch(/^cs_[0-9A-Za-z]{32}$/);
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(token);
    expect((await callApi(token)).status).toBe(200);

    await page.getByRole("row", { name: /website/ }).getByRole("button", { name: "Revoke" }).click();
    await page.waitForURL(`${server.url}/settings/profile#api-tokens`);
    await page.getByText(/Revoked "website"/).waitFor();
    expect((await callApi(token)).status).toBe(401);
    // "API tokens" stays a shortcut to the same tokens.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API tokens" }).click();
    await page.getByRole("row", { name: /website.*revoked/ }).waitFor();
    expect((await store.listTokens(ann.id)).map((t) => t.name)).toEqual(["website"]);
  }, 90_000);

  it("signs the owner out when a page on another loopback port plants a second session cookie, instead of switching accounts", async () => {
    await owner("Alice Victim", "alice@example.com");
    await owner("Bob Planter", "bob@example.com");
    // Bob's own session, as he would get it by signing in anywhere.
    const bob = pageClient((r) => fetch(r), server.url);
    await signInByForm(bob, "bob@example.com", PASSWORD);
    const bobsSecret = bob.cookies.get("calsync_session")!;

    const { page, context } = await signedInPage("alice@example.com");
    const attacker = await startFeedServer();
    try {
      // Cookies ignore ports: this one, set by another port of 127.0.0.1, goes to calsync too, and first
      // under /properties (its longer path).
      attacker.setRoute("/free-stuff.html", {
        headers: { "content-type": "text/html", "set-cookie": `calsync_session=${bobsSecret}; Path=/properties` },
        body: "<!doctype html><title>Free stuff</title><p>Nothing to see.</p>",
      });
      await page.goto(attacker.url("/free-stuff.html"));
      expect((await context.cookies(`${server.url}/properties`)).filter((c) => c.name === "calsync_session")).toHaveLength(2);

      await page.goto(`${server.url}/properties`);
      await page.waitForURL(/\/sign-in\?next=%2Fproperties$/);
      await page.getByText("You were signed out: this browser sent two sign-in cookies").waitFor();
      expect(await page.getByText("Bob Planter").count()).toBe(0);
      // Both cookies are gone, the planted one included, and both sessions are over.
      expect((await context.cookies(`${server.url}/properties`)).filter((c) => c.name === "calsync_session")).toEqual([]);
      expect((await bob.get("/properties")).status).toBe(303);
      // The message is said once.
      await page.reload();
      expect(await page.getByText("two sign-in cookies").count()).toBe(0);
      await page.goto(`${server.url}/properties`);
      await page.waitForURL(/\/sign-in/);
    } finally {
      await attacker.close();
    }
  }, 90_000);

  it("shows a token created on a 390 px phone where the page lands, with a Try it line its scopes allow, scope names whole", async () => {
    await owner("Pat Phone", "pat@example.com");
    const { page } = await signedInPage("pat@example.com", { viewport: { width: 390, height: 844 } });
    await page.goto(`${server.url}/settings/profile`);
    // "read", never "rea" over "d": each scope name's text is on one line.
    const brokenNames = await page.evaluate<string[]>(
      "[...document.querySelectorAll('.checks code')].filter((c) => { const r = document.createRange(); r.selectNodeContents(c); return r.getClientRects().length > 1; }).map((c) => c.textContent)",
    );
    expect(brokenNames).toEqual([]);

    await page.getByLabel("Token name").fill("reader");
    await page.getByRole("checkbox", { name: /^sync/ }).uncheck();
    await page.getByRole("button", { name: "Create token" }).click();
    const shown = page.getByTestId("new-token");
    await shown.waitFor();
    const box = (await shown.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(844);
    const token = (await shown.textContent())!.trim();
    // The Try it line reads the properties (the token may read, not sync), and that call is allowed.
    const tryIt = (await page.getByText(/^Try it:/).textContent()) ?? "";
    expect(tryIt).toContain(`curl -H "x-api-key: ${token.slice(0, 7)}…"`);
    expect(tryIt).toContain(`${server.url}/api/v1/properties`);
    expect(tryIt).not.toContain("calendars/sync");
    expect((await fetch(`${server.url}/api/v1/properties`, { headers: { "x-api-key": token } })).status).toBe(200);
    expect((await callApi(token)).status).toBe(403);

    // Refused (no scope): the reason is where the page lands too.
    await page.getByLabel("Token name").fill("nothing");
    for (const scope of [/^sync/, /^read/, /^write/]) await page.getByRole("checkbox", { name: scope }).uncheck();
    await page.getByRole("button", { name: "Create token" }).click();
    const refusal = page.getByText("Check at least one scope");
    await refusal.waitFor();
    const refused = (await refusal.boundingBox())!;
    expect(refused.y).toBeGreaterThanOrEqual(0);
    expect(refused.y + refused.height).toBeLessThanOrEqual(844);
  }, 90_000);
});
