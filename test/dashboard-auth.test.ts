// Dashboard accounts over the real h3 app and a real SQLite file: sign-in and sign-out, session
// cookies and their lifetime, throttled sign-in, invites and password changes (CONTRACT §9); and the
// throttle shared by two instances on one PostgreSQL database.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp, startServer } from "../src/server/index.js";
import { issueInvite } from "../src/server/accounts.js";
import { hashPassword } from "../src/server/dashboard/passwords.js";
import { openStore } from "../src/store/index.js";
import type { Owner, Store } from "../src/store/types.js";
import { pageClient, signIn, type PageClient } from "./helpers/dashboard-client.js";
import { postgresKind } from "./helpers/stores.js";

const PASSWORD = "correct horse battery";
const BASE = "http://calsync.test";
const DAY = 86_400_000;
const dir = mkdtempSync(path.join(tmpdir(), "calsync-auth-"));
const dbPath = path.join(dir, "auth.db");
const clock = { now: new Date() };
let store: Store;
let otherInstance: Store;
let passwordHash: string;
let app: ReturnType<typeof createApp>;
let proxied: ReturnType<typeof createApp>;
let count = 0;

beforeAll(async () => {
  store = await openStore(dbPath);
  // A second process on the same database: what it sees is what the store holds, not memory.
  otherInstance = await openStore(dbPath);
  passwordHash = await hashPassword(PASSWORD);
  app = createApp({ store, now: () => clock.now });
  proxied = createApp({ store: otherInstance, now: () => clock.now, trustProxy: true });
});
afterAll(async () => {
  await store.close();
  await otherInstance.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  clock.now = new Date();
  // app.fetch has no socket: every request without trust-proxy counts under one "unknown" address.
  await store.clearSignInFailures("ip:unknown");
});

async function owner(name = `Owner ${++count}`): Promise<Owner> {
  const created = await store.createOwner(name, { email: `owner${count}@example.com` });
  await store.setOwnerPassword(created.id, passwordHash);
  return created;
}
const browser = (options: Parameters<typeof pageClient>[2] = {}) => pageClient((r) => app.fetch(r), BASE, options);

describe("sign-in", () => {
  it("sends a visitor without a session to sign in, then back to the page asked for", async () => {
    const ann = await owner();
    const client = browser();
    const away = await client.get("/settings/tokens?x=1");
    expect([away.status, away.headers.get("location")]).toEqual([303, "/sign-in?next=%2Fsettings%2Ftokens%3Fx%3D1"]);
    const form = await client.page("/sign-in?next=%2Fsettings%2Ftokens%3Fx%3D1");
    expect(form).toContain('name="next" value="/settings/tokens?x=1"');
    const signedIn = await client.post("/sign-in", { email: ann.email!.toUpperCase(), password: PASSWORD, next: "/settings/tokens?x=1" });
    expect([signedIn.status, signedIn.headers.get("location")]).toEqual([303, "/settings/tokens?x=1"]);
    expect(await (await client.get("/properties")).text()).toContain(ann.name);
  });

  it("never redirects to another site after sign-in", async () => {
    const ann = await owner();
    const client = browser();
    await client.page("/sign-in");
    const response = await client.post("/sign-in", { email: ann.email!, password: PASSWORD, next: "//evil.test/x" });
    expect(response.headers.get("location")).toBe("/");
  });

  it("refuses a wrong password or an unknown email with the same answer and no session", async () => {
    const ann = await owner();
    const client = browser();
    await client.page("/sign-in");
    const wrong = await client.post("/sign-in", { email: ann.email!, password: "not the password" });
    const unknown = await client.post("/sign-in", { email: "nobody@example.com", password: PASSWORD });
    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(422);
      expect(await response.text()).toContain("Wrong email or password.");
    }
    expect(client.cookies.has("calsync_session")).toBe(false);
  });

  it("sets the session cookie HttpOnly and SameSite=Lax, without Secure over plain HTTP", async () => {
    const ann = await owner();
    const client = browser();
    await client.page("/sign-in");
    await client.post("/sign-in", { email: ann.email!, password: PASSWORD });
    const line = client.lastSetCookies.find((c) => c.startsWith("calsync_session="))!;
    expect(line).toMatch(/; HttpOnly/);
    expect(line).toMatch(/; SameSite=Lax/);
    expect(line).toMatch(/; Max-Age=2592000/);
    expect(line).not.toMatch(/Secure/);
  });

  it("names the cookie __Host- and marks it Secure behind an HTTPS proxy with trust-proxy, and ignores the header without it", async () => {
    const ann = await owner();
    const https = { "x-forwarded-proto": "https", "x-forwarded-for": "198.51.100.9" };
    const behindProxy = pageClient((r) => proxied.fetch(r), BASE, { origin: "https://calsync.test", headers: https });
    await behindProxy.page("/sign-in");
    expect(behindProxy.lastSetCookies.find((c) => c.startsWith("calsync_csrf="))).toMatch(/; Secure$/);
    const signedIn = await behindProxy.post("/sign-in", { email: ann.email!, password: PASSWORD });
    expect(signedIn.status).toBe(303);
    expect(behindProxy.lastSetCookies.find((c) => c.startsWith("__Host-calsync_session="))).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=2592000; Secure$/);
    expect(behindProxy.cookies.has("calsync_session")).toBe(false);
    expect((await behindProxy.get("/properties")).status).toBe(200);
    // Under HTTPS only the __Host- name opens a session: a plain one (settable by a sibling subdomain) does not.
    const secret = behindProxy.cookies.get("__Host-calsync_session")!;
    behindProxy.cookies.delete("__Host-calsync_session");
    behindProxy.cookies.set("calsync_session", secret);
    expect((await behindProxy.get("/properties")).status).toBe(303);

    const direct = browser({ headers: https });
    await direct.page("/sign-in");
    await direct.post("/sign-in", { email: ann.email!, password: PASSWORD });
    expect(direct.lastSetCookies.find((c) => c.startsWith("calsync_session="))).not.toMatch(/Secure/);
  });

  it("signs out a request carrying two session cookies, ending both sessions, and says why once", async () => {
    const [ann, bob] = [await owner(), await owner()];
    const [alice, mallory] = [browser(), browser()];
    await signIn(alice, ann.email!, PASSWORD);
    await signIn(mallory, bob.email!, PASSWORD);
    const send = (cookies: string[], path: string) => app.fetch(new Request(`${BASE}${path}`, { headers: { cookie: cookies.join("; ") }, redirect: "manual" }));
    // The browser sends the planted cookie (longer path) first; neither may be taken.
    const both = [`calsync_session=${mallory.cookies.get("calsync_session")}`, `calsync_session=${alice.cookies.get("calsync_session")}`];
    const answer = await send(both, "/properties/x");
    expect([answer.status, answer.headers.get("location")]).toEqual([303, "/sign-in?next=%2Fproperties%2Fx"]);
    const set = answer.headers.getSetCookie();
    for (const cookiePath of ["/", "/properties", "/properties/", "/properties/x"]) {
      expect(set).toContain(`calsync_session=; Path=${cookiePath}; HttpOnly; SameSite=Lax; Max-Age=0`);
    }
    const flash = set.find((c) => c.startsWith("calsync_flash="))!.split(";")[0]!;
    const signInPage = await send([flash], "/sign-in?next=%2Fproperties%2Fx");
    expect(await signInPage.text()).toContain("sent two sign-in cookies");
    expect(signInPage.headers.getSetCookie()).toContain("calsync_flash=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
    expect(await (await send([], "/sign-in")).text()).not.toContain("two sign-in cookies");
    // Both sessions are over: neither cookie opens a page on its own any more.
    expect((await alice.get("/properties")).status).toBe(303);
    expect((await mallory.get("/properties")).status).toBe(303);
    // A form posted with two cookies does nothing either.
    await signIn(alice, ann.email!, PASSWORD);
    const post = await app.fetch(new Request(`${BASE}/properties`, {
      method: "POST",
      headers: { cookie: `calsync_session=planted; calsync_session=${alice.cookies.get("calsync_session")}`, origin: BASE, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: alice.csrf!, name: "Planted", timeZone: "UTC" }),
      redirect: "manual",
    }));
    expect([post.status, post.headers.get("location")]).toEqual([303, "/sign-in"]);
    expect((await store.listProperties(ann.id)).map((p) => p.name)).not.toContain("Planted");
  });

  it("ends the session on sign-out: the old cookie no longer opens any page", async () => {
    const ann = await owner();
    const client = browser();
    await signIn(client, ann.email!, PASSWORD);
    const cookie = client.cookies.get("calsync_session")!;
    const out = await client.post("/sign-out", {});
    expect([out.status, out.headers.get("location")]).toEqual([303, "/sign-in"]);
    expect(client.cookies.has("calsync_session")).toBe(false);
    const replayed = await app.fetch(new Request(`${BASE}/properties`, { headers: { cookie: `calsync_session=${cookie}` } }));
    expect([replayed.status, replayed.headers.get("location")]).toEqual([303, "/sign-in?next=%2Fproperties"]);
  });

  it("keeps a session in use and ends one left idle for 30 days", async () => {
    const ann = await owner();
    const client = browser();
    await signIn(client, ann.email!, PASSWORD);
    clock.now = new Date(clock.now.getTime() + 29 * DAY);
    expect((await client.get("/properties")).status).toBe(200);
    clock.now = new Date(clock.now.getTime() + 29 * DAY);
    expect((await client.get("/properties")).status).toBe(200);
    clock.now = new Date(clock.now.getTime() + 30 * DAY + 1000);
    expect((await client.get("/properties")).status).toBe(303);
  });
});

describe("sign-in throttling", () => {
  it("answers 429 with Retry-After after 10 failed sign-ins for one email in 15 minutes, on every instance, even for the right password", async () => {
    const ann = await owner();
    const clients = [browser(), pageClient((r) => proxied.fetch(r), BASE)];
    for (const client of clients) await client.page("/sign-in");
    for (let i = 0; i < 10; i++) {
      // Each attempt from another address, alternating instances: only the email's count can add up.
      const client = clients[i % 2]!;
      const response = await client.post("/sign-in", { email: ann.email!, password: `wrong ${i}` }, { headers: { "x-forwarded-for": `192.0.2.${i}` } });
      expect(response.status).toBe(422);
    }
    const blocked = await clients[1]!.post("/sign-in", { email: ann.email!, password: PASSWORD }, { headers: { "x-forwarded-for": "192.0.2.99" } });
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(await blocked.text()).toContain("Too many failed sign-ins");
    expect(clients[1]!.cookies.has("calsync_session")).toBe(false);

    clock.now = new Date(clock.now.getTime() + retryAfter * 1000);
    const later = await clients[0]!.post("/sign-in", { email: ann.email!, password: PASSWORD });
    expect(later.status).toBe(303);
  });

  it("counts failures per client address across emails (trust-proxy: the address the proxy saw)", async () => {
    const ann = await owner();
    const client = pageClient((r) => proxied.fetch(r), BASE);
    await client.page("/sign-in");
    const from = (address: string) => ({ headers: { "x-forwarded-for": `10.9.9.9, ${address}` } });
    for (let i = 0; i < 10; i++) {
      expect((await client.post("/sign-in", { email: `guess${i}@example.com`, password: "x" }, from("203.0.113.7"))).status).toBe(422);
    }
    const blocked = await client.post("/sign-in", { email: ann.email!, password: PASSWORD }, from("203.0.113.7"));
    expect([blocked.status, Number(blocked.headers.get("retry-after")) > 0]).toEqual([429, true]);
    const elsewhere = await client.post("/sign-in", { email: ann.email!, password: PASSWORD }, from("203.0.113.8"));
    expect(elsewhere.status).toBe(303);
  });

  it("counts by the socket address when not trusting a proxy, whatever X-Forwarded-For says", async () => {
    const server = await startServer({ store, host: "127.0.0.1", port: 0, log: () => {} });
    try {
      const ann = await owner();
      const client = pageClient((r) => fetch(r), server.url);
      await client.page("/sign-in");
      for (let i = 0; i < 10; i++) {
        const response = await client.post("/sign-in", { email: `socket${i}@example.com`, password: "x" }, { headers: { "x-forwarded-for": `198.18.0.${i}` } });
        expect(response.status).toBe(422);
      }
      const blocked = await client.post("/sign-in", { email: ann.email!, password: PASSWORD }, { headers: { "x-forwarded-for": "198.18.1.1" } });
      expect(blocked.status).toBe(429);
    } finally {
      await server.close({ graceMs: 1000 });
      await store.clearSignInFailures("ip:127.0.0.1");
    }
  });
});

describe("invites", () => {
  async function invited(): Promise<{ owner: Owner; path: string }> {
    const created = await store.createOwner(`Invitee ${++count}`, { email: `invitee${count}@example.com` });
    const invite = await issueInvite(store, created.id, BASE, clock.now);
    return { owner: created, path: new URL(invite.url).pathname };
  }

  it("lets the owner choose a password of at least 10 characters and signs them in", async () => {
    const { owner: bea, path: link } = await invited();
    const client = browser();
    const page = await client.page(link);
    expect(page).toContain(`Welcome, ${bea.name}`);
    expect(page).toContain(`value="${bea.email}"`);
    const short = await client.post(link, { password: "123456789" });
    expect(short.status).toBe(422);
    expect(await short.text()).toContain("at least 10 characters");
    const set = await client.post(link, { password: "ten chars!" });
    expect([set.status, set.headers.get("location")]).toEqual([303, "/properties"]);
    expect(client.cookies.has("calsync_session")).toBe(true);
    expect(await (await client.get("/properties")).text()).toContain("Password set. Welcome");
    await signIn(browser(), bea.email!, "ten chars!");
  });

  it("works once: a used link answers 404 and changes nothing", async () => {
    const { owner: cem, path: link } = await invited();
    const first = browser();
    await first.page(link);
    expect((await first.post(link, { password: "first password" })).status).toBe(303);
    const second = browser();
    expect((await second.get(link)).status).toBe(404);
    // The form read before the first use cannot be replayed either.
    const replay = await first.post(link, { password: "second password" });
    expect(replay.status).toBe(404);
    await signIn(browser(), cem.email!, "first password");
  });

  it("expires after 72 hours", async () => {
    const { path: link } = await invited();
    clock.now = new Date(clock.now.getTime() + 72 * 3_600_000 + 1000);
    const response = await browser().get(link);
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("older than 72 hours");
  });

  it("retires the owner's other open links when one is used", async () => {
    const { owner: dee, path: first } = await invited();
    const second = new URL((await issueInvite(store, dee.id, BASE, clock.now)).url).pathname;
    const client = browser();
    await client.page(second);
    expect((await client.post(second, { password: "from the second link" })).status).toBe(303);
    expect((await browser().get(first)).status).toBe(404);
  });

  it("never writes the link's token to the access log", async () => {
    const lines: string[] = [];
    const logged = createApp({ store, now: () => clock.now, logger: (line) => lines.push(line.path) });
    const { path: link } = await invited();
    const client = pageClient((r) => logged.fetch(r), BASE);
    await client.page(link);
    await client.post(link, { password: "logged but not leaked" });
    expect(lines).toEqual(["/invite/***", "/invite/***"]);
  });

  it("answers 404 for unknown and malformed links", async () => {
    expect((await browser().get(`/invite/${"A".repeat(43)}`)).status).toBe(404);
    expect((await browser().get("/invite/short")).status).toBe(404);
  });
});

describe("password change", () => {
  it("ends every other session of the owner and keeps this browser signed in", async () => {
    const eve = await owner();
    const here = browser();
    const there = browser();
    await signIn(here, eve.email!, PASSWORD);
    await signIn(there, eve.email!, PASSWORD);
    await here.page("/settings/profile");
    const wrong = await here.post("/settings/password", { currentPassword: "nope nope nope", password: "a brand new password" });
    expect(wrong.status).toBe(422);
    const changed = await here.post("/settings/password", { currentPassword: PASSWORD, password: "a brand new password" });
    expect([changed.status, changed.headers.get("location")]).toEqual([303, "/settings/profile"]);
    expect((await here.get("/properties")).status).toBe(200);
    expect((await there.get("/properties")).status).toBe(303);
    await signIn(browser(), eve.email!, "a brand new password");
  });
});

describe("sign-in throttling on PostgreSQL", () => {
  const kind = postgresKind();
  afterAll(() => kind.dispose());

  it("refuses a sign-in with kilobytes of email or forwarded address like any wrong one, and counts it", async () => {
    const url = await kind.create();
    const instance = await openStore(url);
    try {
      const client = pageClient((r) => createApp({ store: instance, trustProxy: true }).fetch(r), BASE);
      await client.page("/sign-in");
      // Random, so PostgreSQL cannot compress it under its index's 2704-byte row limit.
      const noise = (n: number) => Array.from({ length: n }, () => Math.random().toString(36).slice(2, 8)).join("");
      for (const [email, forwarded] of [[`${noise(1000)}@example.com`, "192.0.2.7"], ["nobody@example.com", noise(1000)]]) {
        const response = await client.post("/sign-in", { email: email!, password: "wrong" }, { headers: { "x-forwarded-for": forwarded! } });
        expect(response.status).toBe(422);
      }
      expect(await instance.countRows(["sign_in_failures"])).toEqual({ sign_in_failures: 4 });
    } finally {
      await instance.close();
    }
  });

  it("counts failures in the database: two instances on one PostgreSQL database throttle one email together", async () => {
    const url = await kind.create();
    const [a, b] = [await openStore(url), await openStore(url)];
    try {
      const ann = await a.createOwner("Ann", { email: "ann@example.com" });
      await a.setOwnerPassword(ann.id, passwordHash);
      const clients = [a, b].map((instance) => pageClient((r) => createApp({ store: instance, trustProxy: true }).fetch(r), BASE));
      for (const client of clients) await client.page("/sign-in");
      for (let i = 0; i < 10; i++) {
        // Alternating instances and addresses: only the email's count, kept in the database, can add up.
        const response = await clients[i % 2]!.post("/sign-in", { email: ann.email!, password: `wrong ${i}` }, { headers: { "x-forwarded-for": `192.0.2.${i}` } });
        expect(response.status).toBe(422);
      }
      for (const client of clients) {
        const blocked = await client.post("/sign-in", { email: ann.email!, password: PASSWORD }, { headers: { "x-forwarded-for": "192.0.2.99" } });
        expect([blocked.status, Number(blocked.headers.get("retry-after")) > 14 * 60]).toEqual([429, true]);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});
