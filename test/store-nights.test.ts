// The store's side of CONTRACT §8, on SQLite and PostgreSQL: arrival/departure stored with each row,
// recomputed in one transaction when a property's zone changes, and a schema step that fills them in
// for older databases.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { datedEvent } from "../src/engine/nights.js";
import { syncOwner } from "../src/engine/sync.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";

let feeds: FeedServer;
beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => {
  await feeds.close();
});

const Y = new Date().getUTCFullYear() + 1;
/** The Los Angeles stay, written with its TZID. */
const LA_FEED = [
  "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN",
  "BEGIN:VEVENT", "UID:la", `DTSTART;TZID=America/Los_Angeles:${Y}1210T160000`, `DTEND;TZID=America/Los_Angeles:${Y}1213T100000`,
  "SUMMARY:Reserved - Ann", "END:VEVENT", "END:VCALENDAR", "",
].join("\r\n");

const T0 = "2031-01-01T00:00:00.000Z";

describe.each(storeKinds())("$name store", (kind: StoreKind) => {
  const stores: Store[] = [];
  const open = async (location: string) => {
    const store = await openStore(location);
    stores.push(store);
    return store;
  };
  /** A fresh database at schema version 2 (before issue 12) holding owner own_a, property prp_a and `rows`. */
  const atVersion2 = async (...rows: string[]) => {
    const location = await kind.create();
    await kind.migrateTo(location, 2);
    await kind.query(location, `INSERT INTO owners (id, name, created_at) VALUES ('own_a', 'Ann', '${T0}')`);
    await kind.query(location, `INSERT INTO properties (id, owner_id, name, created_at) VALUES ('prp_a', 'own_a', 'Loft', '${T0}')`);
    for (const row of rows) await kind.query(location, row);
    return location;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  describe("properties and their time zone", () => {
    it("creates a property with a zone, or none", async () => {
      const store = await open(await kind.create());
      const owner = await store.createOwner("Ann");
      expect((await store.createProperty(owner.id, "Beach House", "America/Los_Angeles")).timeZone).toBe("America/Los_Angeles");
      expect((await store.createProperty(owner.id, "Cabin")).timeZone).toBeNull();
    });

    it("recomputes every reservation's nights when the zone changes, and moves the outbound feed's change time", async () => {
      const store = await open(await kind.create());
      const owner = await store.createOwner("Ann");
      const property = await store.createProperty(owner.id, "Beach House");
      // The same stay written in UTC, with no zone anywhere in the feed.
      const body = LA_FEED.replace(`DTSTART;TZID=America/Los_Angeles:${Y}1210T160000`, `DTSTART:${Y}1211T000000Z`)
        .replace(`DTEND;TZID=America/Los_Angeles:${Y}1213T100000`, `DTEND:${Y}1213T180000Z`);
      const url = feeds.url(`/store-nights/utc-${kind.name}.ics`, { body });
      await store.createCalendar({ propertyId: property.id, source: "vrbo", url });
      expect((await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true })).ok).toBe(true);
      const nights = async () => (await store.listReservations()).map((r) => [r.arrival, r.departure]);
      expect(await nights()).toEqual([[`${Y}-12-11`, `${Y}-12-13`]]);
      const before = (await store.propertyFeedReservations(property.id)).updatedAt!;
      await new Promise((resolve) => setTimeout(resolve, 5));

      const updated = await store.updateProperty(property.id, { timeZone: "America/Los_Angeles" });
      expect(updated).toEqual({ property: { ...property, timeZone: "America/Los_Angeles" }, nightsChanged: 1 });
      expect(await nights()).toEqual([[`${Y}-12-10`, `${Y}-12-13`]]);
      const feed = await store.propertyFeedReservations(property.id);
      expect(feed.reservations).toMatchObject([{ arrival: `${Y}-12-10`, departure: `${Y}-12-13` }]);
      expect(feed.updatedAt! > before).toBe(true);

      // A rename changes the feed too (X-WR-CALNAME) but no night.
      expect(await store.updateProperty(property.id, { name: "Casa" })).toMatchObject({ property: { name: "Casa", timeZone: "America/Los_Angeles" }, nightsChanged: 0 });
      expect(await store.updateProperty(property.id, { timeZone: null })).toMatchObject({ nightsChanged: 1 });
      expect(await nights()).toEqual([[`${Y}-12-11`, `${Y}-12-13`]]);
      expect(await store.updateProperty("prp_nope", { timeZone: "UTC" })).toBeUndefined();
    });

    it("keeps the event's own zone for when the property has none", async () => {
      const store = await open(await kind.create());
      const owner = await store.createOwner("Ann");
      const property = await store.createProperty(owner.id, "Beach House", "Pacific/Auckland");
      await store.createCalendar({ propertyId: property.id, source: "vrbo", url: feeds.url(`/store-nights/la-${kind.name}.ics`, { body: LA_FEED }) });
      await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
      // In Auckland the stay is 13:00 on the 11th → 07:00 on the 14th.
      expect((await store.listReservations()).map((r) => [r.eventZone, r.arrival, r.departure])).toEqual([
        ["America/Los_Angeles", `${Y}-12-11`, `${Y}-12-14`],
      ]);
      await store.updateProperty(property.id, { timeZone: null });
      expect((await store.listReservations()).map((r) => [r.arrival, r.departure])).toEqual([[`${Y}-12-10`, `${Y}-12-13`]]);
    });
  });

  describe("a zone change racing a sync", () => {
    it("writes a sync's rows in the zone the property holds at commit, not the one its diff read", async () => {
      const store = await open(await kind.create());
      const owner = await store.createOwner("Ann");
      const property = await store.createProperty(owner.id, "Beach House");
      const calendar = await store.createCalendar({ propertyId: property.id, source: "vrbo", url: "https://v.example/1.ics" });
      // Nights read with no zone (UTC dates), as a sync that started before the update would have them.
      const event = datedEvent(
        { uid: "la", kind: "booking", start: `${Y}-12-11T00:00:00.000Z`, end: `${Y}-12-13T18:00:00.000Z`, summary: "Reserved", cancelled: false, details: {}, raw: {} },
        null,
      );
      expect([event.arrival, event.departure]).toEqual([`${Y}-12-11`, `${Y}-12-13`]);
      await store.updateProperty(property.id, { timeZone: "America/Los_Angeles" });
      const feed = { etag: null, lastModified: null, contentHash: null, lastFound: 1 };
      await store.applyCalendarSync({ calendarId: calendar.id, inserts: [event], updates: [], cancels: [], feed, syncedAt: new Date(), timeZone: null });
      expect((await store.listReservations()).map((r) => [r.arrival, r.departure])).toEqual([[`${Y}-12-10`, `${Y}-12-13`]]);
    });
  });

  describe("the schema step of issue 12", () => {
    it("fills in arrival and departure by the rule with no zone known, starts streaks and clears validators", async () => {
      const location = await atVersion2(
        `INSERT INTO calendars (id, property_id, url, source, etag, content_hash, last_status, last_synced_at, created_at)
          VALUES ('cal_ok', 'prp_a', 'https://a.example/1.ics', 'vrbo', '"v1"', 'abc', 'success', '2031-01-01T00:00:00.000Z', '${T0}'),
                 ('cal_down', 'prp_a', 'https://a.example/2.ics', 'vrbo', NULL, NULL, 'failed', '2031-01-02T00:00:00.000Z', '${T0}')`,
        `INSERT INTO reservations (id, calendar_id, uid, kind, status, start, "end", summary, details, raw, created_at, updated_at) VALUES
          ('rsv_day', 'cal_ok', 'd', 'booking', 'active', '2031-03-10', '2031-03-14', 'Reserved', '{}', '{}', '${T0}', '${T0}'),
          ('rsv_timed', 'cal_ok', 't', 'booking', 'active', '2031-03-11T00:00:00.000Z', '2031-03-13T18:00:00.000Z', 'Reserved', '{}', '{}', '${T0}', '${T0}'),
          ('rsv_short', 'cal_ok', 's', 'booking', 'active', '2031-03-20T09:00:00.000Z', '2031-03-20T17:00:00.000Z', 'Reserved', '{}', '{}', '${T0}', '${T0}')`,
      );

      const store = await open(location);
      expect((await store.listReservations()).map((r) => [r.id, r.arrival, r.departure, r.eventZone])).toEqual([
        ["rsv_day", "2031-03-10", "2031-03-14", null],
        ["rsv_timed", "2031-03-11", "2031-03-13", null],
        ["rsv_short", "2031-03-20", "2031-03-21", null],
      ]);
      expect((await store.listCalendars()).map((c) => [c.id, c.consecutiveFailures, c.failingSince])).toEqual([
        ["cal_ok", 0, null],
        ["cal_down", 1, "2031-01-02T00:00:00.000Z"],
      ]);
      const { calendars } = await store.ownerCalendars("own_a");
      expect(calendars.map((c) => [c.etag, c.contentHash, c.timeZone])).toEqual([[null, null, null], [null, null, null]]);
    });

    it("lets the first sync after the upgrade learn each event's zone even when the feed would answer 304", async () => {
      const url = feeds.url(`/store-nights/upgrade-${kind.name}.ics`, { body: LA_FEED, etag: '"same"' });
      // What calsync stored for the LA stay before: UTC instants, with the feed's ETag.
      const location = await atVersion2(
        `INSERT INTO calendars (id, property_id, url, source, etag, created_at) VALUES ('cal_a', 'prp_a', '${url}', 'vrbo', '"same"', '${T0}')`,
        `INSERT INTO reservations (id, calendar_id, uid, kind, status, start, "end", summary, details, raw, created_at, updated_at)
          VALUES ('rsv_la', 'cal_a', 'la', 'booking', 'active', '${Y}-12-11T00:00:00.000Z', '${Y}-12-13T18:00:00.000Z',
                  'Reserved - Ann', '{"guestName":"Ann"}', '{}', '${T0}', '${T0}')`,
      );

      const store = await open(location);
      expect((await store.listReservations()).map((r) => r.arrival)).toEqual([`${Y}-12-11`]);
      const response = await syncOwner({ store, ownerId: "own_a", allowPrivateNetworks: true });
      expect(response.results[0]?.result).toMatchObject({ status: "success", reservationsUpdated: 1, reservationsCreated: 0 });
      expect((await store.listReservations()).map((r) => [r.id, r.eventZone, r.arrival, r.departure])).toEqual([
        ["rsv_la", "America/Los_Angeles", `${Y}-12-10`, `${Y}-12-13`],
      ]);
    });
  });
});
