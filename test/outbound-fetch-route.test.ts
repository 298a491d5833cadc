// GET /ical/<feedToken>.ics writes the fetch log echo detection reads (CONTRACT §8): every fetch, a 304
// included, with its exclude set and the nights it served; HEAD learns no nights and is not logged. On SQLite
// and PostgreSQL (where every instance answering the channel writes the one shared log).
import { describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { buildIcs, day } from "./helpers/ics.js";
import { useServerFixtures } from "./helpers/server-fixtures.js";
import { storeKinds } from "./helpers/stores.js";

describe.each(storeKinds())("the outbound feed's fetch log ($name store)", (kind) => {
  const fixtures = useServerFixtures(kind);

  async function loftWithFeed() {
    const store = await fixtures.newStore();
    const owner = await store.createOwner("Ann");
    const loft = await store.createProperty(owner.id, "Sea View Loft");
    const airbnb = buildIcs([
      { uid: "past", start: day(-9), end: day(-5), summary: "Reserved" },
      { uid: "a1", start: day(10), end: day(15), summary: "Reserved" },
    ]);
    const booking = buildIcs([{ uid: "b1", start: day(20), end: day(22), summary: "CLOSED - Not available" }]);
    await store.createCalendar({ propertyId: loft.id, source: "airbnb", url: fixtures.feed({ body: airbnb }) });
    await store.createCalendar({ propertyId: loft.id, source: "booking", url: fixtures.feed({ body: booking }) });
    expect((await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true })).ok).toBe(true);
    const ids = new Map((await store.listReservations()).map((r) => [r.uid, r.id]));
    const server = await fixtures.serve(store);
    const url = `${server.url}/ical/${(await store.propertyFeedToken(loft.id))!}.ics`;
    return { store, loft, ids, url };
  }

  it("records what each URL served: its exclude set and the upcoming nights behind each event", async () => {
    const { store, loft, ids, url } = await loftWithFeed();
    expect((await fetch(`${url}?exclude=booking`)).status).toBe(200);
    expect((await fetch(`${url}?exclude=airbnb`)).status).toBe(200);
    const log = await store.propertyOutboundFetches(loft.id);
    expect(log.map(({ exclude, nights }) => ({ exclude, nights }))).toEqual([
      // The past stay is served but not logged: nights that ended cannot be sold or echoed any more.
      { exclude: ["booking"], nights: [{ reservationId: ids.get("a1"), arrival: day(10), departure: day(15) }] },
      { exclude: ["airbnb"], nights: [{ reservationId: ids.get("b1"), arrival: day(20), departure: day(22) }] },
    ]);
  });

  it("counts a 304 as a fetch of the same body, and leaves HEAD requests out", async () => {
    const { store, loft, url } = await loftWithFeed();
    const first = await fetch(`${url}?exclude=booking`);
    await first.text();
    const [before] = await store.propertyOutboundFetches(loft.id);
    const again = await fetch(`${url}?exclude=booking`, { headers: { "if-none-match": first.headers.get("etag")! } });
    expect(again.status).toBe(304);
    const [after, ...more] = await store.propertyOutboundFetches(loft.id);
    expect(more).toEqual([]);
    expect([before!.fetches, after!.fetches]).toEqual([1, 2]);
    expect(after!.firstFetchedAt).toBe(before!.firstFetchedAt);
    expect(after!.lastFetchedAt >= before!.lastFetchedAt).toBe(true);

    expect((await fetch(`${url}?exclude=airbnb`, { method: "HEAD" })).status).toBe(200);
    expect((await store.propertyOutboundFetches(loft.id)).map((f) => [f.exclude, f.fetches])).toEqual([[["booking"], 2]]);
  });

  it("records nothing for an unknown token or an unknown source in exclude", async () => {
    const { store, loft, url } = await loftWithFeed();
    expect((await fetch(url.replace(/\/ical\/\w+\.ics$/, "/ical/nope.ics"))).status).toBe(404);
    expect((await fetch(`${url}?exclude=airbmb`)).status).toBe(400);
    expect(await store.propertyOutboundFetches(loft.id)).toEqual([]);
  });
});
