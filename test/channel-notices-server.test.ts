// Channel notices (CONTRACT §17) end to end: the real server with a short --channel-stale-after, a test client
// playing Booking.com, a loopback webhook receiver and a real SMTP server. One `channel.stale` webhook and one
// mail when Booking.com stops reading, `channel.recovered` (and its mail) on its next read; one `channel.exposed`
// and one mail for nights Airbnb took that Booking.com's last read served free, once per night.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../src/server/index.js";
import { generateWebhookSecret } from "../src/server/webhooks/endpoint-rules.js";
import { syncOwner } from "../src/engine/sync.js";
import { openStore } from "../src/store/index.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";
import { sqliteKind } from "./helpers/stores.js";
import { ownerWith, until, useServerFixtures } from "./helpers/server-fixtures.js";
import { startSmtpServer, type TestSmtpServer } from "./helpers/smtp-server.js";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver.js";

const FAST_RETRIES = [100, 100, 100, 100];
let smtp: TestSmtpServer;
let receiver: WebhookReceiver;
beforeAll(async () => {
  smtp = await startSmtpServer({ auth: true });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await smtp.close();
  await receiver.close();
});

describe("channel.stale and channel.recovered", () => {
  const fixtures = useServerFixtures();

  it("tells once when Booking.com stops reading the calendar, and again when it reads it", async () => {
    const store = await fixtures.newStore();
    const owner = await ownerWith(store, "Ann", { "Harbour Loft": [{ source: "booking", url: fixtures.feed({ body: buildIcs([]) }) }] });
    await store.setOwnerEmail(owner.ownerId, "ann@example.com");
    await store.createWebhookEndpoint({ ownerId: owner.ownerId, url: `${receiver.url}`, events: ["channel.stale", "channel.recovered"], secret: generateWebhookSecret() });
    const propertyId = owner.propertyIds["Harbour Loft"]!;
    const token = (await store.propertyFeedToken(propertyId))!;
    const read = async () => {
      const answer = await fetch(`${server.url}/ical/${token}.ics?exclude=booking`, { headers: { "user-agent": "Booking.com iCal" } });
      await answer.text();
    };
    const server = await startServer({
      store,
      port: 0,
      host: "127.0.0.1",
      allowPrivateNetworks: true,
      log: () => {},
      channelStaleAfterMs: 1000,
      webhooks: { retryScheduleMs: FAST_RETRIES },
      mail: { smtpUrl: smtp.url, from: "calsync <calsync@example.com>", baseUrl: "https://cal.example.com", retryScheduleMs: FAST_RETRIES, pollMs: 50 },
    });
    try {
      await read();
      expect(receiver.events()).toEqual([]);
      await until(() => receiver.events("channel.stale").length > 0, 10_000);
      const [stale] = receiver.events("channel.stale");
      expect(stale!.data).toMatchObject({ channel: { propertyId, propertyName: "Harbour Loft", source: "booking" }, status: "stale" });
      const [mail] = await smtp.waitFor(1);
      expect(mail!.subject).toBe("Booking.com stopped reading your calendar: Harbour Loft");
      expect(mail!.text).not.toContain(token);
      // Still stale a while later: the streak was told once.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(receiver.events("channel.stale")).toHaveLength(1);
      expect(smtp.received).toHaveLength(1);

      await read();
      await until(() => receiver.events("channel.recovered").length > 0, 10_000);
      expect(receiver.events("channel.recovered")[0]!.data).toMatchObject({ channel: { source: "booking" } });
      const mails = await smtp.waitFor(2);
      expect(mails[1]!.subject).toBe("Booking.com reads your calendar again: Harbour Loft");
      expect(receiver.events("channel.stale")).toHaveLength(1);
    } finally {
      await server.close({ graceMs: 2000 });
    }
  });
});

describe("channel.exposed", () => {
  const fixtures = useServerFixtures();

  it("tells once per night when Booking.com may still sell nights Airbnb took, and again only for new nights", async () => {
    const location = fixtures.dbPath();
    const store = await openStore(location);
    let airbnb: IcsEvent[] = [];
    const airbnbUrl = fixtures.feed((_req, res) => {
      res.writeHead(200, { "content-type": "text/calendar" });
      res.end(buildIcs(airbnb));
    });
    const owner = await ownerWith(store, "Ann", {
      "Harbour Loft": [
        { source: "airbnb", url: airbnbUrl },
        { source: "booking", url: fixtures.feed({ body: buildIcs([]) }) },
      ],
    });
    await store.setOwnerEmail(owner.ownerId, "ann@example.com");
    await store.createWebhookEndpoint({ ownerId: owner.ownerId, url: `${receiver.url}`, events: ["channel.exposed"], secret: generateWebhookSecret() });
    const propertyId = owner.propertyIds["Harbour Loft"]!;
    const token = (await store.propertyFeedToken(propertyId))!;
    const sync = () => syncOwner({ store, ownerId: owner.ownerId, allowPrivateNetworks: true });
    // A test clock for `since`: the night counts as exposed from when calsync stored its reservation, and is
    // news after 6 h (no usual interval yet), so the reservation is made to have been stored 7 h ago.
    const storedHoursAgo = (hours: number) =>
      sqliteKind().query(location, "UPDATE reservations SET created_at = ?", [new Date(Date.now() - hours * 3_600_000).toISOString()]);
    const bookingReads = async () => {
      const answer = await fetch(`${server.url}/ical/${token}.ics?exclude=booking`, { headers: { "user-agent": "Booking.com iCal" } });
      expect(answer.status).toBe(200);
      await answer.text();
    };
    const exposedMails = () => smtp.received.filter((m) => m.subject === "Booking.com may still sell booked nights: Harbour Loft");
    await sync();
    const server = await startServer({
      store,
      port: 0,
      host: "127.0.0.1",
      allowPrivateNetworks: true,
      log: () => {},
      // A check every second; the links turn stale meanwhile, which this test leaves to the one above.
      channelStaleAfterMs: 4000,
      webhooks: { retryScheduleMs: FAST_RETRIES },
      mail: { smtpUrl: smtp.url, from: "calsync <calsync@example.com>", baseUrl: "https://cal.example.com", retryScheduleMs: FAST_RETRIES, pollMs: 50 },
    });
    try {
      await bookingReads();
      airbnb = [{ uid: "a1", start: day(20), end: day(23), summary: "Reserved" }];
      await sync();
      await storedHoursAgo(7);

      await until(() => receiver.events("channel.exposed").length > 0, 30_000);
      const [exposed] = receiver.events("channel.exposed");
      expect(exposed!.data).toMatchObject({ channel: { propertyId, propertyName: "Harbour Loft", source: "booking" } });
      expect((exposed!.data as { nights: Array<{ date: string; source: string }> }).nights.map((n) => [n.date, n.source])).toEqual([
        [day(20), "airbnb"],
        [day(21), "airbnb"],
        [day(22), "airbnb"],
      ]);
      await until(() => exposedMails().length > 0, 10_000);
      expect(exposedMails()[0]!.text).not.toContain(token);

      // Checks go on every second: the same nights are not told again, new ones are.
      airbnb = [...airbnb, { uid: "a2", start: day(30), end: day(32), summary: "Reserved" }];
      await sync();
      await storedHoursAgo(7);
      await until(() => receiver.events("channel.exposed").length > 1, 30_000);
      // A few checks later, still two.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const nights = receiver.events("channel.exposed").map((e) => (e.data as { nights: Array<{ date: string }> }).nights.map((n) => n.date));
      expect(nights).toEqual([
        [day(20), day(21), day(22)],
        [day(30), day(31)],
      ]);
      await until(() => exposedMails().length > 1, 10_000);
      expect(exposedMails()).toHaveLength(2);
    } finally {
      await server.close({ graceMs: 2000 });
      await store.close();
    }
  }, 90_000);
});
