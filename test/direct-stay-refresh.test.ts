// The refresh before a direct stay's check (CONTRACT §14) on the real server, SQLite and PostgreSQL: only the
// property's calendars, none fetched again within a minute, one fetch for concurrent requests, a bounded wait for a
// hanging channel, and no failure counted nor `sync.completed` / `calendar.failed` sent for a refresh.
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateWebhookSecret } from "../src/server/webhooks/endpoint-rules.js";
import { buildIcs, day } from "./helpers/ics.js";
import { Gate, ics, ownerWith, post as syncNow, until, useServerFixtures } from "./helpers/server-fixtures.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver.js";

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

describe.each(storeKinds())("a direct stay's refresh on $name", (kind: StoreKind) => {
  const { newStore, serve, feed, ageFetches } = useServerFixtures(kind);

  // A feed answering `answer()` (200 with one stay by default) that counts the requests it gets.
  const countedFeed = (answer: (res: ServerResponse) => void = (res) => void res.writeHead(200, { "content-type": "text/calendar" }).end(buildIcs([{ uid: "c1", start: day(2), end: day(4) }]))) => {
    const counted = { fetches: 0, url: "" };
    counted.url = feed((_req, res) => {
      counted.fetches++;
      answer(res);
    });
    return counted;
  };
  const stayPoster = (url: string, token: string, propertyId: string) => (arrival: number, departure = arrival + 1) =>
    fetch(`${url}/api/v1/properties/${propertyId}/reservations`, {
      method: "POST",
      headers: { "x-api-key": token, "content-type": "application/json" },
      body: JSON.stringify({ kind: "booking", arrival: day(arrival), departure: day(departure) }),
    });

  it("fetches only the property's feeds, none again within a minute, each once for concurrent requests", async () => {
    const store = await newStore();
    const [loftAirbnb, loftBooking, barnAirbnb] = [countedFeed(), countedFeed(), countedFeed()];
    const ann = await ownerWith(store, "Ann", {
      Loft: [
        { source: "airbnb", url: loftAirbnb.url },
        { source: "booking", url: loftBooking.url },
      ],
      Barn: [{ source: "airbnb", url: barnAirbnb.url }],
    });
    const server = await serve(store, { apiRateLimit: null });
    const stay = stayPoster(server.url, ann.token, ann.propertyIds.Loft!);
    const fetches = () => [loftAirbnb.fetches, loftBooking.fetches, barnAirbnb.fetches];

    expect((await stay(20)).status).toBe(201);
    expect(fetches()).toEqual([1, 1, 0]);
    // Fetched a moment ago: checked as stored, without a fetch and without a warning.
    const second = await stay(22);
    expect(second.status).toBe(201);
    expect(await second.json()).not.toHaveProperty("warnings");
    expect(fetches()).toEqual([1, 1, 0]);

    await ageFetches(store);
    const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => stay(30 + i * 2)));
    expect(burst.map((res) => res.status)).toEqual(Array.from({ length: 12 }, () => 201));
    expect(fetches()).toEqual([2, 2, 0]);

    // An asked-for sync fetches every feed; a stay right after it fetches none.
    await ageFetches(store);
    expect((await syncNow(server, ann.token)).status).toBe(200);
    expect(fetches()).toEqual([3, 3, 1]);
    expect((await stay(60)).status).toBe(201);
    expect(fetches()).toEqual([3, 3, 1]);
  });

  it("joins a sync of the owner already running instead of fetching again", async () => {
    const store = await newStore();
    const airbnb = new Gate();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed(airbnb.serve(ics("a1"))) }] });
    const server = await serve(store);
    const sync = syncNow(server, ann.token);
    expect(await airbnb.arrivals(1)).toBe(true);
    const made = stayPoster(server.url, ann.token, ann.propertyIds.Loft!)(11, 12);
    await new Promise((resolve) => setTimeout(resolve, 200));
    airbnb.open();
    expect((await sync).status).toBe(200);
    // The sync's answer is the refresh: the nights it found are taken, and the feed was fetched once.
    const refused = await made;
    expect(refused.status).toBe(409);
    expect(await refused.json()).not.toHaveProperty("warnings");
    expect(airbnb.arrived).toBe(1);
  });

  it("answers without waiting for a hanging channel, naming it calendar_not_refreshed, and still refuses its stored nights", async () => {
    const store = await newStore();
    const hanging = countedFeed(() => {}); // never answers
    const healthy = countedFeed();
    const barn = countedFeed();
    const ann = await ownerWith(store, "Ann", {
      Loft: [
        { source: "airbnb", url: hanging.url },
        { source: "booking", url: healthy.url },
      ],
      Barn: [{ source: "airbnb", url: barn.url }],
    });
    const server = await serve(store, { refreshTimeoutMs: 3000 });
    const stay = stayPoster(server.url, ann.token, ann.propertyIds.Loft!);
    const [airbnb] = await store.listCalendars({ propertyId: ann.propertyIds.Loft! });

    const making = stay(20);
    await until(() => hanging.fetches === 1);
    // The owner's other property is refreshed meanwhile, not held back by the hanging channel.
    const barnStay = await stayPoster(server.url, ann.token, ann.propertyIds.Barn!)(20);
    expect(barnStay.status).toBe(201);
    expect(await barnStay.json()).not.toHaveProperty("warnings");
    expect(barn.fetches).toBe(1);

    const made = await making;
    expect(made.status).toBe(201);
    expect(((await made.json()) as { warnings: unknown[] }).warnings).toEqual([
      { code: "calendar_not_refreshed", calendarId: airbnb!.id, message: expect.stringContaining("no answer within 3000 ms") },
    ]);
    expect(healthy.fetches).toBe(1);
    // The healthy channel was refreshed: its stay is taken.
    const refused = await stay(2, 3);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ conflicts: [{ source: "booking", arrival: day(2) }] });
  }, 15_000);

  it("counts no failure and sends no sync.completed or calendar.failed for a refresh; an asked-for sync still does", async () => {
    const store = await newStore();
    const broken = countedFeed((res) => void res.writeHead(500).end("down"));
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: broken.url }] });
    const endpoint = await store.createWebhookEndpoint({ ownerId: ann.ownerId, url: `${receiver.url}?owner=${ann.ownerId}`, events: ["*"], secret: generateWebhookSecret() });
    const server = await serve(store, { apiRateLimit: null, rateLimit: null, webhooks: { pollMs: 50 } });
    const loft = ann.propertyIds.Loft!;
    const stay = stayPoster(server.url, ann.token, loft);
    const mine = () => receiver.received.filter((r) => r.path.includes(ann.ownerId)).map((r) => r.event.type);
    const streak = async () => (await store.listCalendars({ propertyId: loft }))[0]!.consecutiveFailures;

    // Two asked-for syncs: two failures in a row, each run announced.
    for (let i = 0; i < 2; i++) expect((await syncNow(server, ann.token)).status).toBe(207);
    await until(() => mine().filter((type) => type === "sync.completed").length === 2);
    expect(await streak()).toBe(2);

    await ageFetches(store);
    for (let i = 0; i < 3; i++) {
      const made = await stay(20 + i * 2);
      expect(made.status).toBe(201);
      expect(((await made.json()) as { warnings: Array<{ code: string; message: string }> }).warnings).toEqual([
        expect.objectContaining({ code: "calendar_not_refreshed", message: expect.stringContaining("500") }),
      ]);
      expect(await streak()).toBe(2);
    }
    // Fetched once for the first stay only: the others came within the minute.
    expect(broken.fetches).toBe(3);
    await until(async () => (await store.countPendingWebhookDeliveries()) === 0);
    expect(mine().filter((type) => type !== "reservation.created")).toEqual(["sync.completed", "sync.completed"]);

    // The next asked-for sync is the third failure in a row: announced, as every asked-for run.
    expect((await syncNow(server, ann.token)).status).toBe(207);
    expect(await streak()).toBe(3);
    await until(() => mine().includes("calendar.failed"));
    await until(async () => (await store.countPendingWebhookDeliveries()) === 0);
    expect(mine().filter((type) => type !== "reservation.created").sort()).toEqual(["calendar.failed", "sync.completed", "sync.completed", "sync.completed"]);
    void endpoint;
  });
});
