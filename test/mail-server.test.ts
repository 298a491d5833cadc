// Mail to owners (CONTRACT §16) end to end: `startServer` with a real SMTP server on loopback (smtp-server),
// real syncs of loopback feeds, and mailparser reading what arrived. Double bookings, failing calendars and
// their recovery, the notification switches, owners without an email, and an SMTP server refusing our login.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { issueInvite } from "../src/server/accounts.js";
import { startServer, type RunningServer } from "../src/server/index.js";
import type { Store } from "../src/store/types.js";
import { buildIcs, day } from "./helpers/ics.js";
import { ownerWith, until, useServerFixtures } from "./helpers/server-fixtures.js";
import { SMTP_TEST_PASSWORD, startSmtpServer, type TestSmtpServer } from "./helpers/smtp-server.js";

const fixtures = useServerFixtures();
const FAST_RETRIES = [100, 100, 100, 100, 100, 100, 100, 100];
let smtp: TestSmtpServer;
const servers: RunningServer[] = [];

beforeAll(async () => {
  smtp = await startSmtpServer({ auth: true });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close({ graceMs: 2000 })));
  smtp.received.length = 0;
  smtp.refuseLogins(false);
});
afterAll(() => smtp.close());

async function serveWithMail(store: Store, log: string[] = [], extra: { outageReportEveryMs?: number } = {}) {
  const server = await startServer({
    store,
    port: 0,
    host: "127.0.0.1",
    allowPrivateNetworks: true,
    parseThreads: 0,
    log: (line) => log.push(line),
    mail: { smtpUrl: smtp.url, from: "calsync <calsync@example.com>", baseUrl: "https://cal.example.com", retryScheduleMs: FAST_RETRIES, pollMs: 50, ...extra },
  });
  servers.push(server);
  return server;
}

const sync = (server: RunningServer, token: string) => fetch(`${server.url}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": token } });
const stay = (uid: string, from: number, to: number) => ({ uid, start: day(from), end: day(to), summary: "Reserved" });

/** Ann (with an email) and a property whose two channels sold the same nights. */
async function doubleBooked(store: Store, propertyName = "Sea View Loft", email: string | null = "ann@example.com") {
  const airbnb = fixtures.feed({ body: buildIcs([stay("a1", 10, 14)]) });
  const booking = fixtures.feed({ body: buildIcs([stay("b1", 12, 15)]) });
  const ann = await ownerWith(store, "Ann", { [propertyName]: [{ source: "airbnb", url: airbnb }, { source: "booking", url: booking }] });
  if (email) await store.setOwnerEmail(ann.ownerId, email);
  return ann;
}

describe("mail to owners", () => {
  it("mails a double booking once, when first seen: property (escaped), nights, channels and a link to the timeline", async () => {
    const store = await fixtures.newStore();
    const ann = await doubleBooked(store, "Sea <b>View</b> & Loft");
    const server = await serveWithMail(store);
    expect((await sync(server, ann.token)).status).toBe(200);
    const [mail] = await smtp.waitFor(1);
    const propertyId = ann.propertyIds["Sea <b>View</b> & Loft"]!;
    expect(mail!.to).toMatch(/^"?Ann"? <ann@example.com>$/);
    expect(mail!.from).toMatch(/^"?calsync"? <calsync@example.com>$/);
    expect(mail!.subject).toBe("Double booking: Sea <b>View</b> & Loft");
    expect(mail!.messageId).toMatch(/^<mail_[A-Za-z0-9]+@example\.com>$/);
    expect(mail!.text).toContain("2 nights");
    expect(mail!.text).toContain("airbnb, booking");
    expect(mail!.text).toContain(`https://cal.example.com/properties/${propertyId}/timeline`);
    expect(mail!.html).toContain("Sea &lt;b&gt;View&lt;/b&gt; &amp; Loft");
    expect(mail!.html).not.toContain("<b>View</b>");
    expect(mail!.html).toContain(`href="https://cal.example.com/properties/${propertyId}/timeline"`);
    // Nothing secret: no feed URL (their secret path and query), no token.
    for (const part of [mail!.text, mail!.html]) {
      expect(part).not.toContain("s3cr3t");
      expect(part).not.toContain(ann.token);
    }
    await until(async () => (await store.listMails(ann.ownerId))[0]?.status === "sent");

    // Seen again: not news.
    expect((await sync(server, ann.token)).status).toBe(200);
    expect(await store.listMails(ann.ownerId)).toHaveLength(1);
  });

  it("mails a calendar's third failure in a row, once, and its recovery", async () => {
    const store = await fixtures.newStore();
    let failing = true;
    const feed = fixtures.feed((_req, res) => {
      if (failing) res.writeHead(503).end();
      else res.writeHead(200, { "content-type": "text/calendar" }).end(buildIcs([stay("v1", 10, 12)]));
    });
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "vrbo", url: feed }] });
    await store.setOwnerEmail(ann.ownerId, "ann@example.com");
    const server = await serveWithMail(store);
    for (let i = 0; i < 2; i++) expect((await sync(server, ann.token)).status).toBe(207);
    expect(await store.listMails(ann.ownerId)).toEqual([]);
    expect((await sync(server, ann.token)).status).toBe(207);
    const [failed] = await smtp.waitFor(1);
    expect(failed!.subject).toBe("Calendar failing: Loft (vrbo)");
    expect(failed!.text).toContain("failed 3 times in a row");
    expect(failed!.text).toContain("http_error");
    expect(failed!.text).toContain(`https://cal.example.com/properties/${ann.propertyIds.Loft}`);
    expect(failed!.text).not.toContain("s3cr3t");
    expect((await sync(server, ann.token)).status).toBe(207);

    expect(await store.listMails(ann.ownerId)).toHaveLength(1);

    // The feed works again: one recovery mail.
    failing = false;
    expect((await sync(server, ann.token)).status).toBe(200);
    const [, recovered] = await smtp.waitFor(2);
    expect(recovered!.subject).toBe("Calendar working again: Loft (vrbo)");
    expect(recovered!.text).toContain("after 4 failures in a row");
    expect((await sync(server, ann.token)).status).toBe(200);
    expect(await store.listMails(ann.ownerId)).toHaveLength(2);
  });

  it("sends nothing the owner switched off, and nothing (without failing) to an owner without an email", async () => {
    const store = await fixtures.newStore();
    const ann = await doubleBooked(store);
    expect(await store.ownerNotifications(ann.ownerId)).toEqual({ conflicts: true, calendars: true, channels: true });
    await store.setOwnerNotifications(ann.ownerId, { conflicts: false, calendars: true, channels: true });
    const ben = await doubleBooked(store, "Ben's Barn", null);
    const server = await serveWithMail(store);
    expect((await sync(server, ann.token)).status).toBe(200);
    expect((await sync(server, ben.token)).status).toBe(200);
    // Mails are written with the change or not at all: none was written.
    expect(await store.listMails()).toEqual([]);
    expect((await sync(server, ann.token)).status).toBe(200);
    expect(await store.listMails()).toEqual([]);
  });

  it("mails an invite with its link, which works", async () => {
    const store = await fixtures.newStore();
    const owner = await store.createOwner("Cleo", { email: "cleo@example.com" });
    const server = await serveWithMail(store);
    const invite = await issueInvite(store, owner.id, server.url, new Date(), { email: true });
    const [mail] = await smtp.waitFor(1);
    expect(mail!.to).toMatch(/^"?Cleo"? <cleo@example.com>$/);
    expect(mail!.subject).toBe("Your calsync dashboard: choose a password");
    expect(mail!.text).toContain(invite.url);
    expect(mail!.html).toContain(`href="${invite.url}"`);
    expect((await fetch(invite.url)).status).toBe(200);
    // Sent: the link is no longer kept in the outbox.
    await until(async () => (await store.listMails(owner.id))[0]?.status === "sent");
  });

  it("logs an SMTP server refusing our login once per outage, keeps retrying, and sends once it accepts again", async () => {
    const store = await fixtures.newStore();
    const ann = await doubleBooked(store);
    const log: string[] = [];
    smtp.refuseLogins(true);
    const server = await serveWithMail(store, log);
    expect(log.join("\n")).toContain("smtp://calsync:***@127.0.0.1");
    expect((await sync(server, ann.token)).status).toBe(200);
    await until(async () => ((await store.listMails(ann.ownerId))[0]?.attempts ?? 0) >= 4).catch(async (error) => {
      console.log(log.join("\n"), await store.listMails());
      throw error;
    });
    const [pending] = await store.listMails(ann.ownerId);
    expect(pending).toMatchObject({ status: "pending", kind: "booking_conflict" });
    expect(pending!.lastError).toMatch(/EAUTH/);
    const refusals = log.filter((line) => line.includes("mail not sent"));
    expect(refusals).toHaveLength(1);
    expect(log.filter((line) => line.includes("mail still not sent"))).toEqual([]);

    smtp.refuseLogins(false);
    await smtp.waitFor(1);
    await until(() => log.some((line) => line.includes("mail sending resumed")));
    expect(smtp.received).toHaveLength(1);
    expect(log.join("\n")).not.toContain(SMTP_TEST_PASSWORD);
  });
});
