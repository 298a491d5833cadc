// What each channel has seen (CONTRACT §17) through the real server: a test client playing Booking.com reads the
// property's outbound feed, and GET /api/v1/properties/{id}/channels tells its status, reads and exposed nights.
// On SQLite and PostgreSQL.
import { describe, expect, it } from "vitest";
import type { Channel } from "../src/channel-types.js";
import { startServer } from "../src/server/index.js";
import { buildIcs, day } from "./helpers/ics.js";
import { ownerWith, post, useServerFixtures } from "./helpers/server-fixtures.js";
import { openStore } from "../src/store/index.js";
import { checkChannels } from "../src/server/channel-watch.js";
import { postgresKind, storeKinds } from "./helpers/stores.js";

const BOOKING_UA = "Booking.com iCal Importer/2.1 (+https://www.booking.com)";

describe.each(storeKinds())("channel links ($name store)", (kind) => {
  const fixtures = useServerFixtures(kind);

  async function loft(options: { channelStaleAfterMs?: number } = {}) {
    const store = await fixtures.newStore();
    let airbnbBody = buildIcs([{ uid: "a1", start: day(10), end: day(13), summary: "Reserved" }]);
    const airbnbUrl = fixtures.feed((_req, res) => res.writeHead(200, { "content-type": "text/calendar" }).end(airbnbBody));
    const bookingUrl = fixtures.feed({ body: buildIcs([]) });
    const owner = await ownerWith(store, "Ann", {
      "Sea View Loft": [
        { source: "airbnb", url: airbnbUrl },
        { source: "booking", url: bookingUrl },
      ],
    });
    const propertyId = owner.propertyIds["Sea View Loft"]!;
    const server = await startServer({ store, port: 0, host: "127.0.0.1", allowPrivateNetworks: true, webhooks: false, log: () => {}, ...options });
    expect((await post(server, owner.token)).status).toBe(200);
    const feedUrl = `${server.url}/ical/${(await store.propertyFeedToken(propertyId))!}.ics`;
    const channels = async (): Promise<Record<string, Channel>> => {
      const response = await fetch(`${server.url}/api/v1/properties/${propertyId}/channels`, { headers: { "x-api-key": owner.token } });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: Channel[] };
      return Object.fromEntries(body.data.map((c) => [c.source, c]));
    };
    const bookingReads = (init: RequestInit = {}) =>
      fetch(`${feedUrl}?exclude=booking`, { ...init, headers: { "user-agent": BOOKING_UA, ...(init.headers as Record<string, string>) } });
    return {
      store,
      server,
      owner,
      propertyId,
      feedUrl,
      channels,
      bookingReads,
      setAirbnb: (body: string) => void (airbnbBody = body),
      close: () => server.close({ graceMs: 2000 }),
    };
  }

  it("lists one link per channel calendar, never read until the channel reads its own URL, then current", async () => {
    const t = await loft();
    try {
      const before = await t.channels();
      expect(Object.keys(before)).toEqual(["airbnb", "booking"]);
      expect(before.booking).toMatchObject({ status: "never", url: `${t.feedUrl}?exclude=booking`, lastReadAt: null, reads7d: 0, exposedNights: [] });

      const read = await t.bookingReads();
      expect(read.status).toBe(200);
      await read.text();
      const after = await t.channels();
      expect(after.booking).toMatchObject({ status: "current", reads7d: 1, userAgent: BOOKING_UA, usualIntervalSeconds: null, expectedBy: null });
      expect(after.booking!.firstReadAt).toBe(after.booking!.lastReadAt);
      expect(Date.now() - Date.parse(after.booking!.lastReadAt!)).toBeLessThan(60_000);
      // Airbnb's link was not read: a read of Booking.com's URL (or of the plain feed) is nobody else's.
      await (await fetch(t.feedUrl)).text();
      expect(after.airbnb!.status).toBe("never");
      expect((await t.channels()).airbnb!.status).toBe("never");
    } finally {
      await t.close();
    }
  });

  it("makes Booking.com behind with exactly the nights of a new Airbnb booking until it reads again", async () => {
    const t = await loft();
    try {
      await (await t.bookingReads()).text();
      t.setAirbnb(buildIcs([
        { uid: "a1", start: day(10), end: day(13), summary: "Reserved" },
        { uid: "a2", start: day(20), end: day(23), summary: "Reserved" },
      ]));
      expect((await post(t.server, t.owner.token)).status).toBe(200);
      const a2 = (await t.store.listReservations({ propertyId: t.propertyId })).find((r) => r.uid === "a2")!;
      const behind = (await t.channels()).booking!;
      expect(behind.status).toBe("behind");
      expect(behind.exposedNights.map(({ date, reservationId, source }) => ({ date, reservationId, source }))).toEqual(
        [day(20), day(21), day(22)].map((date) => ({ date, reservationId: a2.id, source: "airbnb" })),
      );
      expect(Date.parse(behind.exposedNights[0]!.since)).toBeGreaterThan(Date.parse(behind.lastReadAt!));
      expect(behind.freedNights).toEqual([]);

      await (await t.bookingReads()).text();
      const current = (await t.channels()).booking!;
      expect(current).toMatchObject({ status: "current", exposedNights: [], reads7d: 2 });
    } finally {
      await t.close();
    }
  });

  it("counts a HEAD and a 304 as reads, and a read with an unknown exclude for nobody", async () => {
    const t = await loft();
    try {
      const first = await t.bookingReads();
      await first.text();
      expect((await t.bookingReads({ method: "HEAD" })).status).toBe(200);
      const again = await t.bookingReads({ headers: { "if-none-match": first.headers.get("etag")! } });
      expect(again.status).toBe(304);
      expect((await fetch(`${t.feedUrl}?exclude=bookingg`)).status).toBe(400);
      const booking = (await t.channels()).booking!;
      expect(booking.reads7d).toBe(3);
      expect(booking.usualIntervalSeconds).toBe(0);
      expect(booking.expectedBy).toBe(booking.lastReadAt);
    } finally {
      await t.close();
    }
  });

  it("turns stale once no read came for longer than --channel-stale-after", async () => {
    const t = await loft({ channelStaleAfterMs: 1000 });
    try {
      await (await t.bookingReads()).text();
      expect((await t.channels()).booking!.status).toBe("current");
      await new Promise((resolve) => setTimeout(resolve, 1300));
      expect((await t.channels()).booking!.status).toBe("stale");
      await (await t.bookingReads()).text();
      expect((await t.channels()).booking!.status).toBe("current");
    } finally {
      await t.close();
    }
  });

  it("forgets a link's reads when its calendar is removed", async () => {
    const t = await loft();
    try {
      await (await t.bookingReads()).text();
      const booking = (await t.store.listCalendars({ propertyId: t.propertyId })).find((c) => c.source === "booking")!;
      await t.store.removeCalendar(booking.id);
      expect(Object.keys(await t.channels())).toEqual(["airbnb"]);
      await t.store.createCalendar({ propertyId: t.propertyId, source: "booking", url: booking.url });
      expect((await t.channels()).booking).toMatchObject({ status: "never", reads7d: 0, lastReadAt: null });
    } finally {
      await t.close();
    }
  });

  it("answers 404 for another owner's property", async () => {
    const t = await loft();
    try {
      const other = await ownerWith(t.store, "Bob", {});
      const response = await fetch(`${t.server.url}/api/v1/properties/${t.propertyId}/channels`, { headers: { "x-api-key": other.token } });
      expect(response.status).toBe(404);
    } finally {
      await t.close();
    }
  });
});

describe("channel links on two instances sharing PostgreSQL", () => {
  const kind = postgresKind();
  const fixtures = useServerFixtures(kind);

  it("counts a read answered by one instance for the other", async () => {
    const location = await kind.create();
    const [a, b] = [await openStore(location), await openStore(location)];
    const servers = [] as Array<Awaited<ReturnType<typeof startServer>>>;
    try {
      const owner = await ownerWith(a, "Ann", { Loft: [{ source: "booking", url: fixtures.feed({ body: buildIcs([]) }) }] });
      const propertyId = owner.propertyIds.Loft!;
      for (const store of [a, b]) servers.push(await startServer({ store, port: 0, host: "127.0.0.1", allowPrivateNetworks: true, webhooks: false, log: () => {} }));
      const token = (await a.propertyFeedToken(propertyId))!;
      await (await fetch(`${servers[0]!.url}/ical/${token}.ics?exclude=booking`, { headers: { "user-agent": BOOKING_UA } })).text();
      await (await fetch(`${servers[1]!.url}/ical/${token}.ics?exclude=booking`, { method: "HEAD", headers: { "user-agent": BOOKING_UA } })).text();
      for (const server of servers) {
        const response = await fetch(`${server.url}/api/v1/properties/${propertyId}/channels`, { headers: { "x-api-key": owner.token } });
        const [booking] = ((await response.json()) as { data: Channel[] }).data;
        expect(booking).toMatchObject({ source: "booking", status: "current", reads7d: 2, userAgent: BOOKING_UA });
      }
    } finally {
      for (const server of servers) await server.close({ graceMs: 2000 });
      await a.close();
      await b.close();
    }
  });

  it("reports a stale link once when two instances check at the same moment", async () => {
    const location = await kind.create();
    const [a, b] = [await openStore(location), await openStore(location)];
    try {
      const owner = await ownerWith(a, "Ann", { Loft: [{ source: "booking", url: fixtures.feed({ body: buildIcs([]) }) }] });
      await a.setOwnerEmail(owner.ownerId, "ann@example.com");
      const now = new Date(Date.now() + 2 * 86_400_000);
      const written = await Promise.all([a, b, a, b].map((store) => checkChannels(store, { staleAfterMs: 3_600_000, now })));
      expect(written.reduce((sum, n) => sum + n, 0)).toBe(1);
      const mails = await a.listMails(owner.ownerId);
      expect(mails.map((m) => m.kind)).toEqual(["channel_stale"]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
