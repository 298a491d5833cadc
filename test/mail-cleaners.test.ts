// Cleaners by mail end to end (CONTRACT §18): a real `calsync serve` with a real SMTP server on loopback. A stay
// moved on its channel mails each cleaner once (List-Unsubscribe one-click headers, links from the base URL,
// no guest data) while its cleaning event keeps its UID; the unsubscribe page's GET changes nothing and its
// POST removes exactly that address, once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { startServer, type RunningServer } from "../src/server/index.js";
import type { Store } from "../src/store/types.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";
import { useServerFixtures } from "./helpers/server-fixtures.js";
import { startSmtpServer, type TestSmtpServer } from "./helpers/smtp-server.js";
import { sqliteKind } from "./helpers/stores.js";

const fixtures = useServerFixtures(sqliteKind());
const BASE = "https://cal.example";
let smtp: TestSmtpServer;
let feeds: FeedServer;
const servers: RunningServer[] = [];

beforeAll(async () => {
  smtp = await startSmtpServer();
  feeds = await startFeedServer();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close({ graceMs: 2000 })));
  smtp.received.length = 0;
});
afterAll(async () => {
  await feeds.close();
  await smtp.close();
});

async function serve(store: Store) {
  const server = await startServer({
    store, port: 0, host: "127.0.0.1", parseThreads: 0, log: () => {},
    mail: { smtpUrl: smtp.url, from: "calsync@example.com", pollMs: 50, baseUrl: BASE },
  });
  servers.push(server);
  return server;
}

const uids = (ics: string) => [...ics.matchAll(/^UID:(.*)$/gm)].map((m) => m[1]!.trim());

describe("Cleaners by mail", () => {
  it("mails each cleaner once for a moved stay, with one-click unsubscribe headers; the cleaning event keeps its UID", async () => {
    const store = await fixtures.newStore();
    const owner = await store.createOwner("Olga", { email: "olga@example.com" });
    const property = await store.createProperty(owner.id, "Loft <1>");
    await store.updateProperty(property.id, { cleanerEmails: ["ann@clean.example", "bob@clean.example"] });
    const stays: IcsEvent[] = [
      { uid: "a", start: day(2), end: day(4), summary: "Reserved - Guest Name" },
      { uid: "b", start: day(8), end: day(10), summary: "Reserved - Other Guest" },
    ];
    const path = `/clean-${Date.now()}.ics`;
    await store.createCalendar({ propertyId: property.id, source: "airbnb", url: feeds.url(path, { body: buildIcs(stays) }) });
    const server = await serve(store);
    await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    const token = await store.feedSecret("property-cleaning", property.id, "make");
    const before = uids(await (await fetch(`${server.url}/cleaning/${token}.ics`)).text());

    feeds.route(path, { body: buildIcs([stays[0]!, { ...stays[1]!, start: day(9), end: day(11) }]) });
    await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    const mails = await smtp.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.received).toHaveLength(2);
    expect(mails.map((m) => m.to).sort()).toEqual(["ann@clean.example", "bob@clean.example"]);
    const [mail] = mails;
    expect(mail!.subject).toBe("Cleaning schedule changed: Loft <1>");
    expect(mail!.html).toContain("Loft &lt;1&gt;");
    expect(mail!.text + mail!.html).not.toMatch(/Guest|Reserved|airbnb|Airbnb/);
    // Headers unfolded (a long one may continue on the next line, RFC 5322).
    const headers = mail!.raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, " ");
    expect(headers).toMatch(/^List-Unsubscribe: <https:\/\/cal\.example\/unsubscribe\/[A-Za-z0-9]{43}>\r?$/m);
    expect(headers).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    expect(await store.listMails(owner.id)).toHaveLength(2);

    const after = uids(await (await fetch(`${server.url}/cleaning/${token}.ics`)).text());
    expect(after).toEqual(before);
    expect(after).toHaveLength(2);
  });

  it("unsubscribes on POST only, exactly that address, once", async () => {
    const store = await fixtures.newStore();
    const owner = await store.createOwner("Olga", { email: "olga@example.com" });
    const property = await store.createProperty(owner.id, "Loft");
    await store.updateProperty(property.id, { cleanerEmails: ["ann@clean.example", "bob@clean.example"] });
    const path = `/unsub-${Date.now()}.ics`;
    const stay = { uid: "a", start: day(2), end: day(4), summary: "Reserved" };
    await store.createCalendar({ propertyId: property.id, source: "airbnb", url: feeds.url(path, { body: buildIcs([stay]) }) });
    const server = await serve(store);
    await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    feeds.route(path, { body: buildIcs([]) });
    await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    const mails = await smtp.waitFor(2);
    const linkOf = (to: string) => /https:\/\/cal\.example(\/unsubscribe\/[A-Za-z0-9]{43})/.exec(mails.find((m) => m.to === to)!.text)![1]!;
    const ann = linkOf("ann@clean.example");

    // A scanner opening the link changes nothing; the page's button POSTs.
    const page = await fetch(`${server.url}${ann}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`<form method="post" action="${ann}">`);
    expect((await store.getProperty(property.id))!.cleanerEmails).toEqual(["ann@clean.example", "bob@clean.example"]);

    const oneClick = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" };
    const done = await fetch(`${server.url}${ann}`, oneClick);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Unsubscribed");
    expect((await store.getProperty(property.id))!.cleanerEmails).toEqual(["bob@clean.example"]);
    const again = await fetch(`${server.url}${ann}`, oneClick);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain("Already unsubscribed");
    expect((await store.getProperty(property.id))!.cleanerEmails).toEqual(["bob@clean.example"]);
    expect((await fetch(`${server.url}/unsubscribe/${"z".repeat(43)}`, oneClick)).status).toBe(404);
  });
});
