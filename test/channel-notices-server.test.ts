// Channel notices (CONTRACT §17) end to end: the real server with a short --channel-stale-after, a test client
// playing Booking.com, a loopback webhook receiver and a real SMTP server. One `channel.stale` webhook and one
// mail when Booking.com stops reading, `channel.recovered` (and its mail) on its next read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../src/server/index.js";
import { generateWebhookSecret } from "../src/server/webhooks/endpoint-rules.js";
import { buildIcs } from "./helpers/ics.js";
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
