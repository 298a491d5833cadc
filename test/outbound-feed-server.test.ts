// GET /ical/<feedToken>.ics on a real server: what channels import, round-tripped through node-ical and
// through calsync itself, with exclude, conditional GET, token rotation and a masked access log.
import ical, { type VEvent } from "node-ical";
import { describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import type { Store } from "../src/store/types.js";
import { buildIcs, day } from "./helpers/ics.js";
import { useServerFixtures } from "./helpers/server-fixtures.js";

const fixtures = useServerFixtures();

/** Owner Ann's "Sea View Loft" with an Airbnb and a Booking.com calendar, synced once, and its feed token. */
async function syncedLoft() {
  const store = await fixtures.newStore();
  const owner = await store.createOwner("Ann");
  const loft = await store.createProperty(owner.id, "Sea View Loft");
  const airbnb = buildIcs([
    { uid: "a1", start: day(5), end: day(8), summary: "Reserved" },
    { uid: "a2", start: day(20), end: day(22), summary: "Airbnb (Not available)" },
    // A timed stay: channels only understand nights, so it must come back as the nights it covers.
    { uid: "a3", start: `${day(30)}T15:00:00.000Z`, end: `${day(33)}T10:00:00.000Z`, summary: "Reserved" },
  ]);
  const bookingFeed = fixtures.feed({ body: buildIcs([{ uid: "b1", start: day(10), end: day(13), summary: "CLOSED - Jane Doe" }]) });
  await store.createCalendar({ propertyId: loft.id, source: "airbnb", url: fixtures.feed({ body: airbnb }) });
  const booking = await store.createCalendar({ propertyId: loft.id, source: "booking", url: bookingFeed });
  const sync = () => syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
  const first = await sync();
  expect(first.ok).toBe(true);
  return { store, ownerId: owner.id, loft, booking, sync, token: (await store.propertyFeedToken(loft.id))! };
}

/** Waits until a change made now has settled: Last-Modified is sent 2 s after the start of its second. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 2005 - (Date.now() % 1000)));

/** The nights (start/end dates) of the active reservations of `propertyId`, sorted. */
async function storedNights(store: Store, propertyId: string, exceptSource?: string): Promise<string[]> {
  return (await store
      .listReservations({ propertyId, status: "active" }))
    .filter((r) => r.source !== exceptSource)
    .map(({ arrival, departure }) => `${arrival}/${departure}`)
    .sort();
}

/** The all-day nights of a feed as node-ical reads them (local getters: node-ical gives local midnight). */
function feedNights(body: string): string[] {
  const date = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
  return Object.values(ical.sync.parseICS(body))
    .filter((c) => c?.type === "VEVENT")
    .map((c) => {
      const event = c as VEvent;
      expect(event.datetype).toBe("date");
      expect(event.summary).toBe("Not available");
      return `${date(event.start)}/${date(event.end!)}`;
    })
    .sort();
}

describe("GET /ical/<feedToken>.ics", () => {
  it("serves every active night of the property as anonymous all-day events, without an API key", async () => {
    const { store, loft, token } = await syncedLoft();
    const server = await fixtures.serve(store);
    const res = await fetch(`${server.url}/ical/${token}.ics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    const body = await res.text();
    expect(feedNights(body)).toEqual(await storedNights(store, loft.id));
    expect(feedNights(body)).toContain(`${day(30)}/${day(33)}`);
    expect(body).not.toContain("Jane");
    expect(body).toContain("X-WR-CALNAME:Sea View Loft");
  });

  it("round-trips through calsync: a property importing the feed gets the same nights", async () => {
    const { store, ownerId, loft, token } = await syncedLoft();
    const server = await fixtures.serve(store);
    const mirror = await store.createProperty(ownerId, "Mirror");
    await store.createCalendar({ propertyId: mirror.id, source: "other", url: `${server.url}/ical/${token}.ics` });
    const response = await syncOwner({ store, ownerId, allowPrivateNetworks: true });
    expect(response.ok).toBe(true);
    expect(await storedNights(store, mirror.id)).toEqual(await storedNights(store, loft.id));
    // "Not available" is an owner block to the importer: another channel closes the nights, it sells nothing.
    expect((await store.listReservations({ propertyId: mirror.id })).every((r) => r.kind === "block")).toBe(true);
  });

  it("leaves out the excluded channel's nights, as one name, a list or repeated parameters", async () => {
    const { store, loft, token } = await syncedLoft();
    const server = await fixtures.serve(store);
    const url = `${server.url}/ical/${token}.ics`;
    const withoutAirbnb = await (await fetch(`${url}?exclude=airbnb`)).text();
    expect(feedNights(withoutAirbnb)).toEqual([`${day(10)}/${day(13)}`]);
    expect(await storedNights(store, loft.id, "airbnb")).toEqual([`${day(10)}/${day(13)}`]);
    for (const query of ["exclude=airbnb,booking", "exclude=airbnb&exclude=booking", "exclude=Airbnb,%20Booking"]) {
      const res = await fetch(`${url}?${query}`);
      expect(res.status, query).toBe(200);
      expect(feedNights(await res.text()), query).toEqual([]);
    }
  });

  it("answers 400 bad_request for an unknown channel in exclude, so a typo cannot cause an echo loop", async () => {
    const { store, token } = await syncedLoft();
    const server = await fixtures.serve(store);
    const res = await fetch(`${server.url}/ical/${token}.ics?exclude=airbmb`);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({
      ok: false,
      error: { code: "bad_request", message: expect.stringContaining('"airbmb"') },
    });
  });

  it("answers 304 to If-None-Match while nothing changed, and a new ETag once the nights changed", async () => {
    const { store, booking, sync, token } = await syncedLoft();
    const server = await fixtures.serve(store);
    const url = `${server.url}/ical/${token}.ics`;
    await settle(); // Last-Modified is sent once the last change has settled
    const first = await fetch(url);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const lastModified = first.headers.get("last-modified")!;
    expect(lastModified).toMatch(/ GMT$/);
    const body = await first.text();

    await sync(); // unchanged feeds: the served bytes must not change either
    const again = await fetch(url);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe(body);

    const notModified = await fetch(url, { headers: { "if-none-match": etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("etag")).toBe(etag);
    expect(await notModified.text()).toBe("");

    // Removing a calendar changes no reservation's updated_at, but its nights leave the feed.
    await store.removeCalendar(booking.id);
    const changed = await fetch(url, { headers: { "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(feedNights(await changed.text())).not.toContain(`${day(10)}/${day(13)}`);
  });

  it("answers If-Modified-Since with 304 until the nights change, and never sends a Last-Modified that goes back", async () => {
    const { store, booking, token } = await syncedLoft();
    const server = await fixtures.serve(store);
    const url = `${server.url}/ical/${token}.ics`;
    await settle();
    const first = await fetch(url);
    const lastModified = first.headers.get("last-modified")!;
    expect(lastModified).toMatch(/ GMT$/);
    expect((await fetch(url, { headers: { "if-modified-since": lastModified } })).status).toBe(304);

    await store.removeCalendar(booking.id);
    // Until the change settles no date is sent: a second change in its second would carry the same one.
    const during = await fetch(url, { headers: { "if-modified-since": lastModified } });
    expect(during.status).toBe(200);
    expect(feedNights(await during.text())).not.toContain(`${day(10)}/${day(13)}`);
    await settle();
    const after = await fetch(url, { headers: { "if-modified-since": lastModified } });
    expect(after.status).toBe(200);
    expect(Date.parse(after.headers.get("last-modified")!)).toBeGreaterThan(Date.parse(lastModified));
    await after.text();
  });

  it("stops serving the old URL once the token is rotated (404 with the API's error body)", async () => {
    const { store, loft, token } = await syncedLoft();
    const server = await fixtures.serve(store);
    expect(await store.propertyFeedToken(loft.id)).toBe(token);
    const rotated = (await store.propertyFeedToken(loft.id, { rotate: true }))!;
    expect(rotated).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(rotated).not.toBe(token);

    const old = await fetch(`${server.url}/ical/${token}.ics`);
    expect(old.status).toBe(404);
    expect(old.headers.get("content-type")).toBe("application/json");
    expect(await old.json()).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect((await fetch(`${server.url}/ical/${rotated}.ics`)).status).toBe(200);
    // Without the .ics the path is not a feed either.
    expect((await fetch(`${server.url}/ical/${rotated}`)).status).toBe(404);
  });

  it("answers HEAD with the feed's headers and no body", async () => {
    const { store, token } = await syncedLoft();
    const server = await fixtures.serve(store);
    const res = await fetch(`${server.url}/ical/${token}.ics`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toMatch(/^"/);
    expect(await res.text()).toBe("");
  });

  it("never writes the feed token to the access log", async () => {
    const { store, token } = await syncedLoft();
    const log: string[] = [];
    const server = await fixtures.serve(store, { log });
    await fetch(`${server.url}/ical/${token}.ics?exclude=airbnb`);
    await fetch(`${server.url}/ical/${token}x.ics`);
    const access = log.filter((line) => line.includes("/ical/"));
    expect(access).toHaveLength(2);
    expect(access[0]).toContain("GET /ical/***.ics 200");
    expect(access[1]).toContain("GET /ical/***.ics 404");
    expect(log.join("\n")).not.toContain(token);
  });
});
