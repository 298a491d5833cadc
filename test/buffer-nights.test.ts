// Buffer nights (CONTRACT §18) through every door that reasons about nights, on a real server and both stores
// with real loopback feeds: availability (API and the element's public JSON), the direct-stay check, every
// channel link of the outbound feed (Airbnb's too, around Airbnb's own booking), echo detection of a
// re-exported buffer, and a booking in another's buffer that is tight but never a double booking.
import { describe, expect, it } from "vitest";
import { buildIcs, day } from "./helpers/ics.js";
import { ownerWith, post, useServerFixtures } from "./helpers/server-fixtures.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";

// The all-day events of a served feed as [DTSTART, DTEND] pairs (YYYY-MM-DD), in feed order.
const eventNights = (ics: string) =>
  [...ics.matchAll(/DTSTART;VALUE=DATE:(\d{8})\r\nDTEND;VALUE=DATE:(\d{8})/g)].map((m) => [m[1], m[2]].map((d) => `${d!.slice(0, 4)}-${d!.slice(4, 6)}-${d!.slice(6)}`));
const free = (nights: Array<{ available: boolean }>) => nights.map((n) => n.available);

describe.each(storeKinds())("buffer nights on $name", (kind: StoreKind) => {
  const { newStore, serve, feed } = useServerFixtures(kind);

  const setUp = async () => {
    const store = await newStore();
    const bodies = {
      airbnb: buildIcs([{ uid: "a1", start: day(10), end: day(13), summary: "Reserved" }]),
      booking: buildIcs([]),
    };
    const route = (source: keyof typeof bodies) => feed((_req, res) => void res.writeHead(200, { "content-type": "text/calendar" }).end(bodies[source]));
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: route("airbnb") }, { source: "booking", url: route("booking") }] });
    const loft = ann.propertyIds.Loft!;
    await store.updateProperty(loft, { bufferNights: 1 });
    const server = await serve(store);
    const sync = async () => {
      const res = await post(server, ann.token);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { conflicts?: unknown[] };
      return { conflicts: body.conflicts ?? [] };
    };
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { "x-api-key": ann.token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    const feedToken = (await store.propertyFeedToken(loft))!;
    const link = async (exclude: string) => (await fetch(`${server.url}/ical/${feedToken}.ics?exclude=${exclude}`)).text();
    expect((await sync()).conflicts).toEqual([]);
    const a1 = (await store.listReservations({ propertyId: loft })).find((r) => r.uid === "a1")!;
    return { store, server, bodies, loft, sync, api, feedToken, link, a1 };
  };

  it("closes the night before and after a booking in the API's availability, the element's JSON and the direct-stay check", async () => {
    const { server, loft, api, feedToken, a1 } = await setUp();
    const range = `from=${day(8)}&to=${day(15)}`;
    const wanted = [true, false, false, false, false, false, true]; // 8 free, 9 buffer, 10–12 stay, 13 buffer, 14 free
    const availability = await api("GET", `/api/v1/properties/${loft}/availability?${range}`);
    expect(free(availability.body.nights)).toEqual(wanted);
    expect(availability.body.nights[1]).toEqual({ date: day(9), available: false, reservationIds: [a1.id] });
    const element = (await (await fetch(`${server.url}/availability/${feedToken}.json?${range}`)).json()) as { nights: Array<{ available: boolean }> };
    expect(free(element.nights)).toEqual(wanted);

    for (const [arrival, departure] of [[day(13), day(14)], [day(8), day(10)]] as const) {
      const refused = await api("POST", `/api/v1/properties/${loft}/reservations`, { kind: "block", arrival, departure, refresh: false });
      expect(refused.status).toBe(409);
      expect(refused.body.conflicts).toEqual([{ reservationId: a1.id, source: "airbnb", arrival: day(10), departure: day(13) }]);
    }
    const made = await api("POST", `/api/v1/properties/${loft}/reservations`, { kind: "booking", arrival: day(14), departure: day(16), refresh: false });
    expect(made.status).toBe(201);
    // The direct booking keeps its own buffer: night 16 is now taken, 17 free; and it may not move into a1's.
    expect(free((await api("GET", `/api/v1/properties/${loft}/availability?from=${day(16)}&to=${day(18)}`)).body.nights)).toEqual([false, true]);
    expect((await api("PATCH", `/api/v1/reservations/${made.body.id}`, { arrival: day(13), refresh: false })).status).toBe(409);
  });

  it("exports the buffer on every channel link, Airbnb's included around Airbnb's own booking; blocks get none", async () => {
    const { store, loft, link, bodies, sync } = await setUp();
    expect(eventNights(await link("booking"))).toEqual([[day(9), day(10)], [day(10), day(13)], [day(13), day(14)]]);
    expect(eventNights(await link("airbnb"))).toEqual([[day(9), day(10)], [day(13), day(14)]]);
    expect(await link("airbnb")).toContain("UID:");
    bodies.airbnb = buildIcs([
      { uid: "a1", start: day(10), end: day(13), summary: "Reserved" },
      { uid: "a2", start: day(20), end: day(22), summary: "Airbnb (Not available)" },
    ]);
    await sync();
    expect(eventNights(await link("booking")).filter(([from]) => from! >= day(19))).toEqual([[day(20), day(22)]]);
    await store.updateProperty(loft, { bufferNights: 0 });
    expect(eventNights(await link("airbnb"))).toEqual([]);
    expect(eventNights(await link("booking"))).toEqual([[day(10), day(13)], [day(20), day(22)]]);
  });

  it("takes a channel re-exporting the buffer nights it was sent for an echo, never a double booking", async () => {
    const { store, loft, link, bodies, sync, a1 } = await setUp();
    await link("booking");
    await link("airbnb");
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Booking.com merges what it was sent into one closed range; Airbnb re-exports the buffer after its own stay.
    bodies.booking = buildIcs([{ uid: "b-closed", start: day(9), end: day(14), summary: "CLOSED - Not available" }]);
    bodies.airbnb = buildIcs([
      { uid: "a1", start: day(10), end: day(13), summary: "Reserved" },
      { uid: "a-after", start: day(13), end: day(14), summary: "Airbnb (Not available)" },
      { uid: "a-before", start: day(9), end: day(10), summary: "Reserved" },
    ]);
    expect((await sync()).conflicts).toEqual([]);
    const rows = await store.listReservations({ propertyId: loft });
    for (const uid of ["b-closed", "a-after", "a-before"]) {
      expect(rows.find((r) => r.uid === uid)).toMatchObject({ kind: "block", echoOf: a1.id });
    }
  });

  it("keeps a booking inside another's buffer (on none of its nights) a booking and no double booking", async () => {
    const { store, loft, bodies, sync } = await setUp();
    // Sold on Booking.com before it read the buffer: night 13 is a1's buffer, none of a1's nights.
    bodies.booking = buildIcs([{ uid: "b1", start: day(13), end: day(15), summary: "CLOSED - Not available" }]);
    expect((await sync()).conflicts).toEqual([]);
    expect((await store.listReservations({ propertyId: loft })).find((r) => r.uid === "b1")).toMatchObject({ kind: "booking", echoOf: null });
  });
});
