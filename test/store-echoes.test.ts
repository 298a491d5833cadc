// The store's side of echoes (CONTRACT §8), on SQLite and PostgreSQL: the outbound fetch log, each row's
// echo_of and the time its nights were first seen, and the schema step that adds them to older databases.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ServedNights } from "../src/engine/echoes.js";
import type { CalendarWrite, DatedEvent } from "../src/engine/model.js";
import { datedEvent } from "../src/engine/nights.js";
import { FETCH_LOG_KEEP_PER_URL, FETCH_LOG_MAX_AGE_DAYS } from "../src/store/fetch-log.js";
import { openStore } from "../src/store/index.js";
import { MIGRATIONS as POSTGRES_MIGRATIONS } from "../src/store/postgres/migrations.js";
import { MIGRATIONS } from "../src/store/sqlite/migrations.js";
import type { Store } from "../src/store/types.js";
import type { CalendarSource } from "../src/types.js";
import { day } from "./helpers/ics.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";

const loft = async (store: Store) => {
  const owner = await store.createOwner("Ann");
  const property = await store.createProperty(owner.id, "Loft");
  const calendar = await store.createCalendar({ propertyId: property.id, url: "https://ical.booking.com/v1/export?t=1", source: "booking" });
  return { owner, property, calendar };
};

const DAY = 86_400_000;
const t0 = Date.parse("2031-05-01T10:00:00.000Z");
const nights = (id: string, from: number, to: number): ServedNights => ({ reservationId: id, arrival: day(from), departure: day(to) });

describe.each(storeKinds())("$name store", (kind: StoreKind) => {
  const stores: Store[] = [];
  const open = async (location?: string) => {
    const store = await openStore(location ?? (await kind.create()));
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  describe("the outbound fetch log", () => {
    it("keeps one record per URL and body: a poll of the same body (a 304 too) only moves its last fetch", async () => {
      const store = await open();
      const { property } = await loft(store);
      const record = (etag: string, at: number, exclude: CalendarSource[] = ["booking"], served = [nights("rsv_A", 10, 15)]) =>
        store.recordOutboundFetch({ propertyId: property.id, exclude, etag, nights: served, at: new Date(at) });
      await record('"v1"', t0);
      await record('"v1"', t0 + 3_600_000, ["booking"], []);
      await record('"v2"', t0 + 7_200_000, ["booking"], [nights("rsv_A", 10, 15), nights("rsv_B", 20, 22)]);
      await record('"v1"', t0 + 9_000_000, ["airbnb"]);
      expect(await store.propertyOutboundFetches(property.id)).toEqual([
        { exclude: ["booking"], firstFetchedAt: new Date(t0).toISOString(), lastFetchedAt: new Date(t0 + 3_600_000).toISOString(), fetches: 2, nights: [nights("rsv_A", 10, 15)] },
        {
          exclude: ["booking"],
          firstFetchedAt: new Date(t0 + 7_200_000).toISOString(),
          lastFetchedAt: new Date(t0 + 7_200_000).toISOString(),
          fetches: 1,
          nights: [nights("rsv_A", 10, 15), nights("rsv_B", 20, 22)],
        },
        { exclude: ["airbnb"], firstFetchedAt: new Date(t0 + 9_000_000).toISOString(), lastFetchedAt: new Date(t0 + 9_000_000).toISOString(), fetches: 1, nights: [nights("rsv_A", 10, 15)] },
      ]);
    });

    it("records fetches of one URL answered at the same moment by two processes as one record of all of them", async () => {
      const location = await kind.create();
      const [a, b] = [await open(location), await open(location)];
      const { property } = await loft(a);
      await Promise.all(Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? a : b).recordOutboundFetch({ propertyId: property.id, exclude: ["booking"], etag: '"v1"', nights: [nights("rsv_A", 10, 15)], at: new Date(t0 + i) }),
      ));
      expect(await a.propertyOutboundFetches(property.id)).toEqual([
        { exclude: ["booking"], firstFetchedAt: expect.any(String), lastFetchedAt: new Date(t0 + 11).toISOString(), fetches: 12, nights: [nights("rsv_A", 10, 15)] },
      ]);
    });

    it("takes an exclude set in any order as one URL, and never moves a last fetch back in time", async () => {
      const store = await open();
      const { property } = await loft(store);
      await store.recordOutboundFetch({ propertyId: property.id, exclude: ["vrbo", "booking"], etag: '"v1"', nights: [], at: new Date(t0 + 1000) });
      await store.recordOutboundFetch({ propertyId: property.id, exclude: ["booking", "vrbo"], etag: '"v1"', nights: [], at: new Date(t0) });
      expect(await store.propertyOutboundFetches(property.id)).toMatchObject([
        { exclude: ["booking", "vrbo"], firstFetchedAt: new Date(t0 + 1000).toISOString(), lastFetchedAt: new Date(t0 + 1000).toISOString(), fetches: 2 },
      ]);
    });

    it(`keeps the newest ${FETCH_LOG_KEEP_PER_URL} bodies of each URL and forgets a URL unfetched for ${FETCH_LOG_MAX_AGE_DAYS} days`, async () => {
      const store = await open();
      const { property } = await loft(store);
      const old = t0 - (FETCH_LOG_MAX_AGE_DAYS + 1) * DAY;
      await store.recordOutboundFetch({ propertyId: property.id, exclude: [], etag: '"old"', nights: [], at: new Date(old) });
      for (let i = 0; i < FETCH_LOG_KEEP_PER_URL + 2; i++) {
        await store.recordOutboundFetch({ propertyId: property.id, exclude: ["booking"], etag: `"v${i}"`, nights: [nights(`rsv_${i}`, 10, 12)], at: new Date(t0 + i * 1000) });
      }
      const kept = await store.propertyOutboundFetches(property.id);
      expect(kept.map((f) => f.nights[0]?.reservationId)).toEqual(["rsv_2", "rsv_3", "rsv_4", "rsv_5", "rsv_6"]);
    });

    it("goes with its property, and records nothing for a property removed meanwhile", async () => {
      const store = await open();
      const { property } = await loft(store);
      await store.recordOutboundFetch({ propertyId: property.id, exclude: [], etag: '"v1"', nights: [], at: new Date(t0) });
      expect(await store.removeProperty(property.id)).toBe(true);
      await store.recordOutboundFetch({ propertyId: property.id, exclude: [], etag: '"v2"', nights: [], at: new Date(t0) });
      expect(await store.propertyOutboundFetches(property.id)).toEqual([]);
    });
  });

  const event = (uid: string, from: number, to: number, extra: Partial<DatedEvent> = {}): DatedEvent => ({
    ...datedEvent({ uid, kind: "booking", start: day(from), end: day(to), summary: "CLOSED - Not available", cancelled: false, details: {}, raw: {} }),
    ...extra,
  });
  const write = (calendarId: string, at: number, parts: Partial<CalendarWrite>): CalendarWrite => ({
    calendarId, inserts: [], updates: [], cancels: [], feed: { etag: null, lastModified: null, contentHash: null, lastFound: 0 },
    syncedAt: new Date(at + 500), seenAt: new Date(at), ...parts,
  });

  describe("reservations and echoes", () => {
    it("stores echoOf and hands it to the listing (null for others) and to the outbound feed, which leaves echoes out", async () => {
      const store = await open();
      const { property, calendar } = await loft(store);
      await store.applyCalendarSync(write(calendar.id, t0, { inserts: [event("e", 10, 15, { kind: "block", echoOf: "rsv_A" }), event("s", 20, 22)] }));
      const rows = await store.listReservations({ propertyId: property.id });
      expect(rows.map((r) => [r.uid, r.kind, r.echoOf])).toEqual([["e", "block", "rsv_A"], ["s", "booking", null]]);
      const feed = await store.propertyFeedReservations(property.id);
      expect(feed.reservations.map((r) => [r.arrival, r.echoOf])).toEqual(expect.arrayContaining([[day(10), "rsv_A"], [day(20), null]]));
    });

    it("first sees a row's nights when it is inserted, when they move and when it comes back, not when only its text changes", async () => {
      const store = await open();
      const { calendar } = await loft(store);
      const seen = async () => (await store.calendarReservations(calendar.id))[0]!.nightsSeenAt;
      await store.applyCalendarSync(write(calendar.id, t0, { inserts: [event("e", 10, 15)] }));
      expect(await seen()).toBe(new Date(t0).toISOString());
      const id = (await store.calendarReservations(calendar.id))[0]!.id;
      await store.applyCalendarSync(write(calendar.id, t0 + 1000, { updates: [{ id, event: event("e", 10, 15, { summary: "Closed" }) }] }));
      expect(await seen()).toBe(new Date(t0).toISOString());
      await store.applyCalendarSync(write(calendar.id, t0 + 2000, { updates: [{ id, event: event("e", 11, 15) }] }));
      expect(await seen()).toBe(new Date(t0 + 2000).toISOString());
      await store.applyCalendarSync(write(calendar.id, t0 + 3000, { cancels: [id] }));
      await store.applyCalendarSync(write(calendar.id, t0 + 4000, { updates: [{ id, event: event("e", 11, 15) }] }));
      expect(await seen()).toBe(new Date(t0 + 4000).toISOString());
      // Without seenAt, the sync's own time.
      await store.applyCalendarSync({ ...write(calendar.id, t0 + 5000, { updates: [{ id, event: event("e", 12, 15) }] }), seenAt: undefined });
      expect(await seen()).toBe(new Date(t0 + 5500).toISOString());
    });
  });

  describe("the schema step of issue 18", () => {
    it("adds the fetch log, and gives existing rows no echo and their last change as the time their nights were seen", async () => {
      // Found by what it does, in both dialects: it is the same step in each.
      const step = MIGRATIONS.findIndex((sql) => sql.includes("CREATE TABLE outbound_fetches"));
      expect(step).toBeGreaterThan(0);
      expect(POSTGRES_MIGRATIONS.findIndex((sql) => sql.includes("CREATE TABLE outbound_fetches"))).toBe(step);
      const location = await kind.create();
      await kind.migrateTo(location, step);
      const T = "2031-01-01T00:00:00.000Z";
      await kind.query(location, `INSERT INTO owners (id, name, created_at) VALUES ('own_a', 'Ann', '${T}')`);
      await kind.query(location, `INSERT INTO properties (id, owner_id, name, created_at) VALUES ('prp_a', 'own_a', 'Loft', '${T}')`);
      await kind.query(location, `INSERT INTO calendars (id, property_id, url, source, created_at)
        VALUES ('cal_b', 'prp_a', 'https://ical.booking.com/1', 'booking', '${T}')`);
      await kind.query(location, `INSERT INTO reservations (id, calendar_id, uid, kind, status, start, "end", summary, details, raw,
        arrival, departure, created_at, updated_at) VALUES ('rsv_b', 'cal_b', 'b', 'booking', 'active', '2031-03-10', '2031-03-14',
        'CLOSED - Not available', '{}', '{}', '2031-03-10', '2031-03-14', '${T}', '2031-02-01T00:00:00.000Z')`);

      const store = await open(location);
      const [row] = await store.calendarReservations("cal_b");
      expect([row!.echoOf, row!.nightsSeenAt]).toEqual([null, "2031-02-01T00:00:00.000Z"]);
      expect(await store.propertyOutboundFetches("prp_a")).toEqual([]);
    });
  });
});
