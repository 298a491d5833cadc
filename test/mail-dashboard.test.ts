// The dashboard's side of mail (CONTRACT §16), over a real `calsync serve` app with a real SMTP server on
// loopback: "Forgot password?" end to end (one link, once, for an hour, other sessions ended, the same answer
// for unknown emails, throttled), the Notifications page, and what the pages say without --smtp-url.
import { request as httpRequest } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../src/server/dashboard/passwords.js";
import { createApp, startServer, type RunningServer } from "../src/server/index.js";
import type { Store } from "../src/store/types.js";
import { pageClient, signIn, type PageClient, type Send } from "./helpers/dashboard-client.js";
import { useServerFixtures } from "./helpers/server-fixtures.js";
import { startSmtpServer, type TestSmtpServer } from "./helpers/smtp-server.js";
import { sqliteKind } from "./helpers/stores.js";

const kind = sqliteKind();
const fixtures = useServerFixtures(kind);
const PASSWORD = "correct horse battery";
let smtp: TestSmtpServer;
const servers: RunningServer[] = [];

beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close({ graceMs: 2000 })));
  smtp.received.length = 0;
});
afterAll(() => smtp.close());

const logs: string[] = [];

async function serve(store: Store, mail = true, options: { trustProxy?: boolean; baseUrl?: string } = {}) {
  const server = await startServer({
    store,
    port: 0,
    host: "127.0.0.1",
    parseThreads: 0,
    trustProxy: options.trustProxy,
    log: (line) => logs.push(line),
    ...(mail ? { mail: { smtpUrl: smtp.url, from: "calsync@example.com", pollMs: 50, baseUrl: options.baseUrl } } : {}),
  });
  servers.push(server);
  return server;
}

const client = (server: RunningServer): PageClient => pageClient((request) => fetch(request), server.url);

async function ownerWithPassword(store: Store, name: string, email: string) {
  const owner = await store.createOwner(name, { email });
  await store.setOwnerPassword(owner.id, await hashPassword(PASSWORD));
  return owner;
}

describe("Forgot password?", () => {
  it("mails a one-time link that works once, for an hour, and ends the owner's other sessions", async () => {
    const store = await fixtures.newStore();
    const dana = await ownerWithPassword(store, "Dana", "dana@example.com");
    const server = await serve(store);
    const elsewhere = client(server);
    await signIn(elsewhere, "dana@example.com", PASSWORD);

    const browser = client(server);
    expect(await browser.page("/sign-in")).toContain('<a href="/forgot-password">Forgot password?</a>');
    await browser.page("/forgot-password");
    const known = await browser.post("/forgot-password", { email: "Dana@Example.com" });
    const unknown = await browser.post("/forgot-password", { email: "nobody@example.com" });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const answer = (html: string, email: string) => /<div class="flash[^>]*>([^<]*)<\/div>/.exec(html)![1]!.replace(email, "EMAIL");
    expect(answer(await known.text(), "dana@example.com")).toBe(answer(await unknown.text(), "nobody@example.com"));
    // Only the known owner got a link.
    expect(await store.listMails()).toMatchObject([{ ownerId: dana.id, kind: "password_reset" }]);

    const [mail] = await smtp.waitFor(1);
    expect(mail!.subject).toBe("Reset your calsync password");
    const link = /http:\/\/\S+\/reset\/[A-Za-z0-9_-]{43}/.exec(mail!.text)![0];
    expect(link.startsWith(`${server.url}/reset/`)).toBe(true);
    const path = link.slice(server.url.length);
    expect(await browser.page(path)).toContain("Choose a new password");
    const set = await browser.post(path, { password: "a brand new passphrase" });
    expect(set.status).toBe(303);
    expect(set.headers.get("location")).toBe("/properties");
    expect((await browser.get("/properties")).status).toBe(200);
    // The other browser is signed out; the link works once; the new password signs in.
    expect((await elsewhere.get("/properties")).status).toBe(303);
    expect((await browser.get(path)).status).toBe(404);
    await signIn(client(server), "dana@example.com", "a brand new passphrase");
    // The token opens an account: the access log never shows it.
    expect(logs.join("\n")).not.toContain(path.slice("/reset/".length));
    expect(logs.join("\n")).toContain("/reset/***");

    // A link an hour old no longer works.
    await browser.post("/forgot-password", { email: "dana@example.com" });
    const [, second] = await smtp.waitFor(2);
    const stale = /\/reset\/[A-Za-z0-9_-]{43}/.exec(second!.text)![0];
    expect((await browser.get(stale)).status).toBe(200);
    await kind.query(store.path, "UPDATE owner_invites SET expires_at = ? WHERE used_at IS NULL", [new Date(Date.now() - 1000).toISOString()]);
    expect((await browser.get(stale)).status).toBe(404);
  });

  it("is throttled like sign-in: the 11th request in 15 minutes is answered 429, and sends nothing", async () => {
    const store = await fixtures.newStore();
    await ownerWithPassword(store, "Eve", "eve@example.com");
    const server = await serve(store);
    const browser = client(server);
    await browser.page("/forgot-password");
    for (let i = 0; i < 10; i++) expect((await browser.post("/forgot-password", { email: "eve@example.com" })).status).toBe(200);
    const refused = await browser.post("/forgot-password", { email: "eve@example.com" });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await store.listMails()).toHaveLength(10);
    // Sign-in is counted apart: the owner can still sign in.
    await signIn(client(server), "eve@example.com", PASSWORD);
  });

  it("without --smtp-url says to ask the person who runs the server, and sends nothing", async () => {
    const store = await fixtures.newStore();
    await ownerWithPassword(store, "Finn", "finn@example.com");
    const server = await serve(store, false);
    const browser = client(server);
    const page = await browser.page("/forgot-password");
    expect(page).toContain("Ask the person who runs it");
    expect(page).not.toContain('name="email"');
    // A hand-made post (with a token from the sign-in page) still mails nothing.
    await browser.page("/sign-in");
    expect((await browser.post("/forgot-password", { email: "finn@example.com" })).status).toBe(200);
    expect(await store.listMails()).toEqual([]);
  });
});

describe("Where the link in a reset mail points", () => {
  // The attacker asks for a reset of the victim's account from their own client, naming their own host.
  async function askAsAttacker(server: RunningServer, send: Send, headers: Record<string, string>) {
    const attacker = pageClient(send, server.url, { origin: "http://evil.example", headers });
    await attacker.page("/forgot-password");
    expect((await attacker.post("/forgot-password", { email: "vic@example.com" })).status).toBe(200);
    const [mail] = await smtp.waitFor(1);
    return new URL(/https?:\/\/\S+\/reset\/[A-Za-z0-9_-]{43}/.exec(mail!.text)![0]);
  }

  it("behind a trusted proxy starts with --base-url, whatever X-Forwarded-Host says", async () => {
    const store = await fixtures.newStore();
    await ownerWithPassword(store, "Vic", "vic@example.com");
    const server = await serve(store, true, { trustProxy: true, baseUrl: "https://cal.example.com" });
    const link = await askAsAttacker(server, (request) => fetch(request), { "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" });
    expect(link.origin).toBe("https://cal.example.com");
  });

  it("without a proxy starts with the URL serve prints, whatever Host says", async () => {
    const store = await fixtures.newStore();
    await ownerWithPassword(store, "Vic", "vic@example.com");
    const server = await serve(store);
    // fetch() sends its own Host; node:http sends the one given.
    const link = await askAsAttacker(server, sendWithHost("evil.example"), {});
    expect(link.origin).toBe(server.url);
  });

  it("from an app embedded behind a trusted proxy with no base URL, starts with the server's URL, never X-Forwarded-Host", async () => {
    const store = await fixtures.newStore();
    await ownerWithPassword(store, "Vic", "vic@example.com");
    // A program that builds the app itself skips startServer's check; the server beside it sends the outbox.
    const sender = await serve(store);
    const app = createApp({ store, trustProxy: true, mail: { serverUrl: () => "https://inside.example", wake: () => {} } });
    const link = await askAsAttacker(sender, (request) => app.fetch(request), { "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" });
    expect(link.origin).toBe("https://inside.example");
  });

  it("is refused at start behind a trusted proxy with mail on and no base URL", async () => {
    const store = await fixtures.newStore();
    await expect(serve(store, true, { trustProxy: true })).rejects.toThrow(/mail\.baseUrl is needed with trustProxy/);
  });
});

// Sends a Request over node:http with `Host` set to `host`, which fetch() does not allow.
function sendWithHost(host: string): Send {
  return async (request) => {
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const headers = { ...Object.fromEntries(request.headers), host };
    return new Promise<Response>((resolve, reject) => {
      const outgoing = httpRequest(request.url, { method: request.method, headers }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
        incoming.on("end", () => {
          const answer = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            for (const item of Array.isArray(value) ? value : [value ?? ""]) answer.append(name, item);
          }
          resolve(new Response(incoming.statusCode === 303 ? null : Buffer.concat(chunks), { status: incoming.statusCode!, headers: answer }));
        });
      });
      outgoing.on("error", reject);
      outgoing.end(body);
    });
  };
}

describe("Notifications page", () => {
  it("has both switches on by default, and saves them", async () => {
    const store = await fixtures.newStore();
    const gus = await ownerWithPassword(store, "Gus", "gus@example.com");
    const server = await serve(store);
    const browser = client(server);
    await signIn(browser, "gus@example.com", PASSWORD);
    const page = await browser.page("/settings/notifications");
    expect(page).toContain('<a href="/settings/notifications" aria-current="page">Notifications</a>');
    expect(page).toMatch(/name="conflicts" value="on" checked> Email me about double bookings/);
    expect(page).toMatch(/name="calendars" value="on" checked> Email me about failing calendars/);
    expect(page).toMatch(/name="channels" value="on" checked> Email me when a channel stops reading my calendar/);
    expect(page).toContain("Mails go to gus@example.com");

    expect((await browser.post("/settings/notifications", { calendars: "on", channels: "on" })).status).toBe(303);
    expect(await store.ownerNotifications(gus.id)).toEqual({ conflicts: false, calendars: true, channels: true });
    const saved = await browser.page("/settings/notifications");
    expect(saved).toMatch(/name="conflicts" value="on"> Email me about double bookings/);
    expect(saved).toContain("Notifications saved.");
    // A form from elsewhere changes nothing.
    expect((await browser.post("/settings/notifications", {}, { csrf: null })).status).toBe(403);
    expect(await store.ownerNotifications(gus.id)).toEqual({ conflicts: false, calendars: true, channels: true });
  });
});
