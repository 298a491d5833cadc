// GET /availability/<feedToken>.json (CONTRACT §15) on a real server: nights and `available` only, readable
// from any origin, revalidated by ETag, gone with a rotated feed token; and the element's script beside it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { todayAt } from "../src/engine/nights.js";
import { syncOwner } from "../src/engine/sync.js";
import { EMBED_SCRIPT_PATH, versionedEmbedPath } from "../src/server/embed-route.js";
import { buildIcs, day } from "./helpers/ics.js";
import { useServerFixtures } from "./helpers/server-fixtures.js";

const fixtures = useServerFixtures();

/** Ann's "Sea View Loft" with an Airbnb and a Booking.com calendar full of private words, synced, and its feed token. */
async function syncedLoft(timeZone: string | null = null) {
  const store = await fixtures.newStore();
  const owner = await store.createOwner("Ann");
  const loft = await store.createProperty(owner.id, "Sea View Loft", timeZone);
  const airbnb = buildIcs([{ uid: "uid-airbnb-jane", start: day(5), end: day(8), summary: "Jane Doe", description: "Phone +49 170 5550123" }]);
  const block = { uid: "uid-booking-block", start: day(20), end: day(22), summary: "CLOSED - Owner's week" };
  let booking = buildIcs([{ uid: "uid-booking-max", start: day(12), end: day(14), summary: "Max Muster" }, block]);
  await store.createCalendar({ propertyId: loft.id, source: "airbnb", url: fixtures.feed({ body: airbnb }) });
  await store.createCalendar({ propertyId: loft.id, source: "booking", url: fixtures.feed((_req, res) => res.writeHead(200, { "content-type": "text/calendar" }).end(booking)) });
  const sync = async () => expect((await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true })).ok).toBe(true);
  const rebook = async (events: Parameters<typeof buildIcs>[0]) => {
    booking = buildIcs(events);
    await sync();
  };
  await sync();
  await rebook([block]); // Max Muster's stay is cancelled: stored, but its nights are free.
  return { store, loft, rebook, token: (await store.propertyFeedToken(loft.id))! };
}

const range = `from=${day(0)}&to=${day(30)}`;

describe("GET /availability/<feedToken>.json", () => {
  it("answers the nights of the range, taken or free, and nothing else: no names, summaries, sources or ids", async () => {
    const { store, loft, token } = await syncedLoft();
    const server = await fixtures.serve(store);
    const response = await fetch(`${server.url}/availability/${token}.json?${range}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("cache-control")).toBe("public, max-age=300");
    expect(response.headers.get("etag")).toMatch(/^"[\w-]{22}"$/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const text = await response.text();
    const body = JSON.parse(text) as { from: string; to: string; nights: Array<Record<string, unknown>> };

    expect(Object.keys(body).sort()).toEqual(["from", "nights", "to"]);
    expect([body.from, body.to, body.nights.length]).toEqual([day(0), day(30), 30]);
    expect(body.nights.every((n) => Object.keys(n).sort().join() === "available,date")).toBe(true);
    const taken = body.nights.filter((n) => !n.available).map((n) => n.date);
    // The cancelled stay (12–14) frees its nights; the block counts like a booking.
    expect(taken).toEqual([day(5), day(6), day(7), day(20), day(21)]);

    const reservations = await store.listReservations({ propertyId: loft.id });
    expect(reservations).toHaveLength(3);
    const secrets = ["Jane", "Doe", "Max", "Muster", "5550123", "Owner", "CLOSED", "Sea View", "airbnb", "booking", "uid-", loft.id, token, "reservationIds", "propertyId"];
    for (const secret of [...secrets, ...reservations.map((r) => r.id)]) expect(text).not.toContain(secret);
  });

  it("answers from the property's today for a year when no range is given", async () => {
    const { store, token } = await syncedLoft("Pacific/Kiritimati");
    const server = await fixtures.serve(store);
    const body = (await (await fetch(`${server.url}/availability/${token}.json`)).json()) as { from: string; nights: unknown[] };
    expect(body.from).toBe(todayAt(new Date(), "Pacific/Kiritimati"));
    expect(body.nights).toHaveLength(365);
  });

  it("answers 304 to the ETag it sent until the nights change, and then the new nights", async () => {
    const { store, token, rebook } = await syncedLoft();
    const server = await fixtures.serve(store);
    const url = `${server.url}/availability/${token}.json?${range}`;
    const etag = (await fetch(url)).headers.get("etag")!;

    const again = await fetch(url, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("access-control-allow-origin")).toBe("*");
    expect(again.headers.get("cache-control")).toBe("public, max-age=300");
    expect((await fetch(url, { headers: { "if-none-match": `W/${etag}, "other"` } })).status).toBe(304);

    await rebook([{ uid: "uid-booking-new", start: day(25), end: day(26), summary: "Eve" }]);
    const changed = await fetch(url, { headers: { "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    const nights = ((await changed.json()) as { nights: Array<{ date: string; available: boolean }> }).nights;
    expect(nights.filter((n) => !n.available).map((n) => n.date)).toEqual([day(5), day(6), day(7), day(25)]);
  });

  it("stops answering the old token once the feed URL is rotated, and answers the new one", async () => {
    const { store, loft, token } = await syncedLoft();
    const log: string[] = [];
    const server = await fixtures.serve(store, { log });
    expect((await fetch(`${server.url}/availability/${token}.json`)).status).toBe(200);
    const rotated = (await store.propertyFeedToken(loft.id, { rotate: true }))!;

    const old = await fetch(`${server.url}/availability/${token}.json`);
    expect(old.status).toBe(404);
    expect(old.headers.get("access-control-allow-origin")).toBe("*");
    expect(await old.json()).toEqual({ ok: false, error: { code: "not_found", message: expect.stringContaining("rotated") } });
    expect((await fetch(`${server.url}/availability/${rotated}.json`)).status).toBe(200);
    expect((await fetch(`${server.url}/ical/${token}.ics`)).status).toBe(404);
    // The token opens the calendar: the access log shows the path without it.
    expect(log.join("\n")).toContain("/availability/***.json");
    expect(log.join("\n")).not.toContain(token);
  });

  it("answers an unknown or malformed token with the JSON error body", async () => {
    const { store } = await syncedLoft();
    const server = await fixtures.serve(store);
    for (const path of ["/availability/NoSuchToken123.json", "/availability/abc", "/availability/a%20b.json", "/availability/"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type"), path).toBe("application/json");
      expect(((await response.json()) as { error: { code: string } }).error.code, path).toBe("not_found");
    }
  });

  it("refuses a malformed range with 400 bad_request naming the parameter", async () => {
    const { store, token } = await syncedLoft();
    const server = await fixtures.serve(store);
    const cases: Array<[string, string]> = [
      ["from=2027-02-30", "from"],
      ["from=tomorrow", "from"],
      [`from=${day(0)}&to=${day(0)}`, "to"],
      [`from=${day(10)}&to=${day(5)}`, "to"],
      ["from=2027-01-01&to=2029-01-03", "to"],
      ["to=2027-1-1", "to"],
    ];
    for (const [query, parameter] of cases) {
      const response = await fetch(`${server.url}/availability/${token}.json?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      const body = (await response.json()) as { ok: boolean; error: { code: string; message: string } };
      expect(body.ok).toBe(false);
      expect(body.error.code).toBe("bad_request");
      expect(body.error.message.startsWith(`${parameter} `), `${query}: ${body.error.message}`).toBe(true);
    }
    expect((await fetch(`${server.url}/availability/${token}.json?from=2027-01-01&to=2029-01-02`)).status).toBe(200);
  });
});

describe("GET /embed/availability.js", () => {
  const file = readFileSync(new URL("../assets/embed/availability.js", import.meta.url), "utf8");

  it("serves the element's module to any origin: the current version briefly cached, the hashed one for a year", async () => {
    const { store } = await syncedLoft();
    const server = await fixtures.serve(store);
    const current = await fetch(`${server.url}${EMBED_SCRIPT_PATH}`);
    expect(current.status).toBe(200);
    expect(current.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(current.headers.get("access-control-allow-origin")).toBe("*");
    expect(current.headers.get("cache-control")).toBe("public, max-age=300");
    expect(await current.text()).toBe(file);

    expect(versionedEmbedPath()).toMatch(/^\/embed\/availability\.[0-9a-f]{12}\.js$/);
    const versioned = await fetch(`${server.url}${versionedEmbedPath()}`);
    expect(versioned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(versioned.headers.get("access-control-allow-origin")).toBe("*");
    expect(await versioned.text()).toBe(file);

    const etag = current.headers.get("etag")!;
    expect((await fetch(`${server.url}${EMBED_SCRIPT_PATH}`, { headers: { "if-none-match": etag } })).status).toBe(304);
    expect((await fetch(`${server.url}/embed/availability.000000000000.js`)).status).toBe(404);
  });
});
