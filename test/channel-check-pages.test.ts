// The channel check at scale (issue 40): it reads properties a page at a time, in id order, on both stores, each
// page's links, reads, reservations and last served nights in a few statements (every property getting its own rows), and
// still checks every one of them; after a long check the next waits so that checks take CHECK_SHARE of the time.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/store/index.js";
import type { CalendarWrite } from "../src/engine/model.js";
import { datedEvent } from "../src/engine/nights.js";
import { channelStates, pageChannelStates } from "../src/resources/channels.js";
import { everyPropertyPage, PROPERTY_PAGE } from "../src/store/every-property.js";
import type { Store } from "../src/store/types.js";
import { day } from "./helpers/ics.js";
import { CHECK_SHARE, checkChannels, LONG_CHECK_MS, nextCheckAfter } from "../src/server/channel-watch.js";
import { sqliteKind, storeKinds } from "./helpers/stores.js";

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  it("pages through every owner's properties once each, in id order", async () => {
    const store = await openStore(await kind.create());
    stores.push(store);
    const made: string[] = [];
    for (const name of ["Ann", "Bob"]) {
      const owner = await store.createOwner(name);
      for (let i = 0; i < 4; i++) made.push((await store.createProperty(owner.id, `${name} ${i}`)).id);
    }
    const first = await store.propertiesAfter(null, 3);
    expect(first).toHaveLength(3);
    const next = await store.propertiesAfter(first[2]!.id, 3);
    expect(next.map((p) => p.id).every((id) => id > first[2]!.id)).toBe(true);
    const seen: string[] = [];
    const pages: number[] = [];
    for await (const page of everyPropertyPage(store, 3)) {
      pages.push(page.length);
      seen.push(...page.map((p) => p.id));
    }
    expect(seen).toEqual([...made].sort());
    expect(pages).toEqual([3, 3, 2]);
    expect(await store.propertiesAfter(seen[seen.length - 1]!, 3)).toEqual([]);
  });

  it("reads a page of properties together, each with its own links, reads, reservations and what each link last served", async () => {
    const store = await openStore(await kind.create());
    stores.push(store);
    const owner = await store.createOwner("Ann");
    // Reads come after the calendars were added (or the links would still be "never"); the check is later.
    const base = Date.now() + 1000;
    const at = (minutes: number) => new Date(base + minutes * 60_000);
    const now = at(300);
    const flats = [];
    for (let i = 0; i < 3; i++) {
      const property = await store.createProperty(owner.id, `Flat ${i}`);
      await store.createCalendar({ propertyId: property.id, source: "booking", url: `https://example.invalid/b${i}.ics` });
      const airbnb = await store.createCalendar({ propertyId: property.id, source: "airbnb", url: `https://example.invalid/a${i}.ics` });
      const stay = datedEvent({ uid: `u${i}`, kind: "booking", start: day(10 + i), end: day(12 + i), summary: "Reserved", cancelled: false, details: {}, raw: {} });
      const write: CalendarWrite = {
        calendarId: airbnb.id, inserts: [stay], updates: [], cancels: [], feed: { etag: null, lastModified: null, contentHash: null, lastFound: 1 },
        syncedAt: at(0), seenAt: at(0),
      };
      await store.applyCalendarSync(write);
      const [reservation] = await store.listReservations({ propertyId: property.id });
      // An older read served the stay as taken, as did one of the feed without both channels: only the newest
      // record of exactly [booking] says what Booking.com last saw.
      const taken = [{ reservationId: reservation!.id, arrival: day(10 + i), departure: day(12 + i) }];
      await store.recordOutboundFetch({ propertyId: property.id, exclude: ["booking"], etag: '"old"', nights: taken, at: at(0.5), userAgent: "old" });
      await store.recordOutboundFetch({ propertyId: property.id, exclude: ["airbnb", "booking"], etag: '"x"', nights: taken, at: at(0.6) });
      // Then Flat i's Booking.com link read i + 1 times, each serving its nights free: Airbnb's stay is exposed there.
      for (let r = 0; r <= i; r++) {
        await store.recordOutboundFetch({ propertyId: property.id, exclude: ["booking"], etag: `"e${i}"`, nights: [], at: at(1 + r), userAgent: `Booking.com ${i}` });
      }
      flats.push({ property, reservationId: reservation!.id, nights: [day(10 + i), day(11 + i)] });
    }
    const bare = await store.createProperty(owner.id, "No calendars");
    const input = { feedBase: "", now, staleAfterMs: 86_400_000 };
    const page = await pageChannelStates(store, [...flats.map((f) => f.property), bare], input);

    expect(page.get(bare.id)).toEqual([]);
    for (const [i, { property, reservationId, nights }] of flats.entries()) {
      const states = page.get(property.id)!;
      expect(states.map((s) => [s.channel.source, s.channel.status])).toEqual([["airbnb", "never"], ["booking", "behind"]]);
      const booking = states[1]!.channel;
      expect(booking).toMatchObject({ reads7d: i + 2, userAgent: `Booking.com ${i}`, lastReadAt: at(1 + i).toISOString() });
      expect(booking.exposedNights.map((n) => [n.date, n.reservationId])).toEqual(nights.map((date) => [date, reservationId]));
      // One property read alone gets the same answer as within its page.
      expect(await channelStates(store, property, input)).toEqual(states);
    }

    // Exposed past 6 h: one event per flat, then its nights come back as reported and a check writes nothing;
    // once they are past, a check forgets them.
    const quiet = { staleAfterMs: 30 * 86_400_000 };
    expect(await checkChannels(store, { ...quiet, now: at(8 * 60) })).toBe(3);
    const reported = await pageChannelStates(store, flats.map((f) => f.property), { ...input, now: at(8 * 60) });
    for (const { property, nights } of flats) expect(reported.get(property.id)![1]!.reportedNights.sort()).toEqual(nights);
    expect(await checkChannels(store, { ...quiet, now: at(9 * 60) })).toBe(0);
    expect(await checkChannels(store, { ...quiet, now: at(20 * 1440) })).toBe(0);
    const forgotten = await pageChannelStates(store, flats.map((f) => f.property), { ...input, now: at(20 * 1440) });
    for (const { property } of flats) expect(forgotten.get(property.id)![1]!.reportedNights).toEqual([]);
  });
});

describe("the channel check over more properties than a page", () => {
  const kind = sqliteKind();
  afterAll(() => kind.dispose());

  it("tells every property's never-read link, the last page's too", async () => {
    const store = await openStore(await kind.create());
    try {
      const owner = await store.createOwner("Ann");
      const count = PROPERTY_PAGE * 2 + 1;
      for (let i = 0; i < count; i++) {
        const property = await store.createProperty(owner.id, `Flat ${i}`);
        await store.createCalendar({ propertyId: property.id, source: "booking", url: `https://example.invalid/${i}.ics` });
      }
      const later = new Date(Date.now() + 2 * 86_400_000);
      expect(await checkChannels(store, { staleAfterMs: 3_600_000, now: later })).toBe(count);
      expect(await checkChannels(store, { staleAfterMs: 3_600_000, now: later })).toBe(0);
    } finally {
      await store.close();
    }
  });
});

describe("the time between checks", () => {
  it("is the set interval after a short check, and keeps a long one to its share of the time", () => {
    expect(nextCheckAfter(60_000, 20)).toBe(60_000);
    expect(nextCheckAfter(1000, LONG_CHECK_MS - 1)).toBe(1000);
    const long = nextCheckAfter(60_000, 10_000);
    expect(10_000 / (10_000 + long)).toBeCloseTo(CHECK_SHARE, 10);
    expect(nextCheckAfter(1000, LONG_CHECK_MS)).toBe(LONG_CHECK_MS * (1 / CHECK_SHARE - 1));
  });
});
