// API v1's resource routes against a real `startServer` on SQLite and PostgreSQL (CONTRACT §14): pages, 404 across
// owners, scopes, the resource routes' own rate budget, direct stays with their refresh, idempotency, and every
// bad input of the issue answered with its 4xx and nothing written.
import { describe, expect, it } from "vitest";
import type { Store } from "../src/store/types.js";
import { generateToken } from "../src/server/tokens.js";
import { buildIcs, day } from "./helpers/ics.js";
import { ownerWith, useServerFixtures } from "./helpers/server-fixtures.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";

/** A response whose JSON the test reads freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type JsonResponse = Omit<Response, "json"> & { json(): Promise<any> };

describe.each(storeKinds())("API v1 resources on $name", (kind: StoreKind) => {
  const { newStore, serve, feed, ageFetches } = useServerFixtures(kind);

  const setUp = async (options: Parameters<typeof serve>[1] = {}) => {
    const store = await newStore();
    const airbnb = { body: buildIcs([{ uid: "a1", start: day(10), end: day(13), summary: "Reserved" }]) };
    const url = feed(airbnb);
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url }] });
    const server = await serve(store, options);
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, token = ann.token): Promise<JsonResponse> =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { "x-api-key": token, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      });
    const loft = ann.propertyIds.Loft!;
    return { store, server, ann, loft, call, url };
  };
  const directRows = async (store: Store, propertyId: string) => (await store.listReservations({ propertyId })).filter((r) => r.source === "direct");

  it("lists properties and reservations page by page, each row once, and answers 404 across owners", async () => {
    const { store, ann, loft, call } = await setUp();
    for (let i = 0; i < 5; i++) {
      const res = await call("POST", `/api/v1/properties/${loft}/reservations`, { kind: "block", arrival: day(20 + i * 3), departure: day(21 + i * 3), refresh: false });
      expect(res.status).toBe(201);
    }
    const properties = await (await call("GET", "/api/v1/properties")).json();
    expect(properties).toMatchObject({ data: [{ id: loft, name: "Loft", calendars: [{ source: "airbnb" }, { source: "direct", url: "" }] }], nextCursor: null });
    expect(properties.data[0].calendars[0].url).not.toContain("s3cr3t-query"); // masked as `calendar list` masks it
    expect(properties.data[0].feedUrl).toBeNull(); // never published: a read makes no token
    const token = await store.propertyFeedToken(loft);
    expect((await (await call("GET", `/api/v1/properties/${loft}`)).json()).feedUrl).toMatch(new RegExp(`/ical/${token}\\.ics$`));

    const seen: string[] = [];
    let next: string | null = null;
    do {
      const res = await call("GET", `/api/v1/properties/${loft}/reservations?limit=2&status=all${next ? `&cursor=${next}` : ""}`);
      expect(res.status).toBe(200);
      const page = await res.json();
      seen.push(...page.data.map((r: { id: string }) => r.id));
      next = page.nextCursor;
    } while (next);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);

    const bob = await ownerWith(store, "Bob", { Barn: [] });
    expect((await call("GET", `/api/v1/properties/${loft}`, undefined, {}, bob.token)).status).toBe(404);
    expect((await call("GET", `/api/v1/properties/${loft}/availability`, undefined, {}, bob.token)).status).toBe(404);
    expect((await call("DELETE", `/api/v1/reservations/${seen[0]}`, undefined, {}, bob.token)).status).toBe(404);
    expect(await directRows(store, loft)).toHaveLength(5);
    void ann;
  });

  it("creates a direct stay after refreshing the channels, refuses taken nights with 409 and the stays, and cancels", async () => {
    const { loft, call } = await setUp();
    const made = await call("POST", `/api/v1/properties/${loft}/reservations`, { kind: "booking", arrival: day(13), departure: day(16), summary: "Phone" });
    expect(made.status).toBe(201);
    const stay = await made.json();
    expect(stay).toMatchObject({ source: "direct", status: "active", arrival: day(13), departure: day(16), summary: "Phone", note: null });
    expect(stay).not.toHaveProperty("warnings");
    const refused = await call("POST", `/api/v1/properties/${loft}/reservations`, { kind: "block", arrival: day(12), departure: day(14) });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ ok: false, error: { code: "nights_unavailable" }, conflicts: [{ source: "airbnb" }, { reservationId: stay.id, source: "direct" }] });
    const availability = await (await call("GET", `/api/v1/properties/${loft}/availability?from=${day(12)}&to=${day(17)}`)).json();
    expect(availability.nights.map((n: { available: boolean }) => n.available)).toEqual([false, false, false, false, true]);
    const cancelled = await call("DELETE", `/api/v1/reservations/${stay.id}`);
    expect(await cancelled.json()).toMatchObject({ id: stay.id, status: "cancelled" });
    const channel = (await (await call("GET", `/api/v1/properties/${loft}/reservations`)).json()).data[0];
    const patch = await call("PATCH", `/api/v1/reservations/${channel.id}`, { summary: "x" });
    expect(patch.status).toBe(409);
    expect((await patch.json()).error.code).toBe("not_direct");
  });

  it("sees a booking the channel's feed gained after the last sync, and names a feed it could not read", async () => {
    const store = await newStore();
    let body = buildIcs([{ uid: "a1", start: day(10), end: day(13), summary: "Reserved" }]);
    let status = 200;
    const url = feed((_req, res) => void res.writeHead(status, { "content-type": "text/calendar" }).end(body));
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url }] });
    const server = await serve(store);
    const loft = ann.propertyIds.Loft!;
    const post = (payload: unknown) =>
      fetch(`${server.url}/api/v1/properties/${loft}/reservations`, { method: "POST", headers: { "x-api-key": ann.token, "content-type": "application/json" }, body: JSON.stringify(payload) });
    expect((await fetch(`${server.url}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": ann.token } })).status).toBe(200);
    await ageFetches(store);
    body = buildIcs([{ uid: "a1", start: day(10), end: day(13), summary: "Reserved" }, { uid: "a2", start: day(30), end: day(34), summary: "Reserved" }]);
    const refused = await post({ kind: "booking", arrival: day(32), departure: day(35) });
    expect(refused.status).toBe(409);
    const answer = (await refused.json()) as { conflicts: Array<{ source: string; arrival: string }> };
    expect(answer.conflicts).toEqual([expect.objectContaining({ source: "airbnb", arrival: day(30) })]);
    await ageFetches(store);
    status = 503;
    const made = await post({ kind: "booking", arrival: day(40), departure: day(42) });
    expect(made.status).toBe(201);
    const calendar = (await store.listCalendars({ propertyId: loft }))[0]!;
    expect(((await made.json()) as { warnings: unknown[] }).warnings).toEqual([{ code: "calendar_not_refreshed", calendarId: calendar.id, message: expect.stringContaining("503") }]);
  });

  it("replays an Idempotency-Key and refuses it with another body", async () => {
    const { store, loft, call } = await setUp();
    const body = { kind: "booking", arrival: day(30), departure: day(32), refresh: false };
    const first = await call("POST", `/api/v1/properties/${loft}/reservations`, body, { "idempotency-key": "order-17" });
    const again = await call("POST", `/api/v1/properties/${loft}/reservations`, body, { "idempotency-key": "order-17" });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual(await first.json());
    const other = await call("POST", `/api/v1/properties/${loft}/reservations`, { ...body, departure: day(33) }, { "idempotency-key": "order-17" });
    expect(other.status).toBe(422);
    expect((await other.json()).error.code).toBe("idempotency_key_reused");
    expect(await directRows(store, loft)).toHaveLength(1);
  });

  it("answers every bad input with its 4xx and writes nothing", async () => {
    const { store, loft, call } = await setUp();
    const post = (body: unknown, headers: Record<string, string> = {}) => call("POST", `/api/v1/properties/${loft}/reservations`, body, headers);
    const ok = { kind: "booking", arrival: day(40), departure: day(42), refresh: false };
    const cases: Array<[Promise<JsonResponse>, number, string]> = [
      [post({ ...ok, arrival: "2027-13-01" }), 422, "invalid_request"],
      [post({ ...ok, arrival: "20270101" }), 422, "invalid_request"],
      [post({ ...ok, departure: day(40) }), 422, "invalid_request"],
      [post({ ...ok, arrival: day(-10), departure: day(-8) }), 422, "invalid_request"],
      [post({ ...ok, departure: day(40 + 367) }), 422, "invalid_request"],
      [post({ ...ok, kind: "hold" }), 422, "invalid_request"],
      [post({ ...ok, guests: 3 }), 422, "invalid_request"],
      [post({ ...ok, note: 7 }), 422, "invalid_request"],
      [post("{not json"), 400, "bad_request"],
      [post(ok, { "idempotency-key": "k".repeat(256) }), 400, "bad_request"],
      [call("POST", "/api/v1/properties/prp_nope/reservations", ok), 404, "not_found"],
      [call("PATCH", "/api/v1/reservations/rsv_nope", { summary: "x" }), 404, "not_found"],
      [call("GET", `/api/v1/properties/${loft}/reservations?cursor=bogus`), 400, "bad_request"],
      [call("GET", `/api/v1/properties/${loft}/reservations?limit=0`), 400, "bad_request"],
      [call("GET", `/api/v1/properties/${loft}/reservations?limit=501`), 400, "bad_request"],
      [call("GET", `/api/v1/properties/${loft}/reservations?status=gone`), 400, "bad_request"],
      [call("GET", `/api/v1/properties/${loft}/reservations?from=2027-02-30`), 400, "bad_request"],
      [call("GET", `/api/v1/properties/${loft}/availability?from=${day(5)}&to=${day(5)}`), 400, "bad_request"],
      [call("GET", `/api/v1/properties/${loft}/availability?from=${day(0)}&to=${day(733)}`), 400, "bad_request"],
      [call("GET", "/api/v1/properties?cursor=%7B%7D"), 400, "bad_request"],
      [call("PUT", `/api/v1/properties/${loft}`), 405, "method_not_allowed"],
    ];
    for (const [pending, status, code] of cases) {
      const res = await pending;
      const body = await res.json();
      expect({ status: res.status, code: body.error?.code }).toEqual({ status, code });
      expect(JSON.stringify(body)).not.toMatch(/at .*\.js|SELECT|sqlite|postgres/i);
    }
    expect(await directRows(store, loft)).toEqual([]);
  });

  it("checks scopes and keeps the resource routes' own rate budget apart from sync's", async () => {
    const { store, server, ann, loft, call } = await setUp({ apiRateLimit: { limit: 3, windowSeconds: 60 }, metrics: true });
    const readOnly = generateToken();
    await store.createToken({ ownerId: ann.ownerId, name: "ro", prefix: readOnly.prefix, hash: readOnly.hash, expiresAt: null, scopes: ["read"] });
    const denied = await call("POST", `/api/v1/properties/${loft}/reservations`, { kind: "block", arrival: day(50), departure: day(51) }, {}, readOnly.token);
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ error: { code: "insufficient_scope", message: expect.stringContaining('"write"') } });
    const sync = await fetch(`${server.url}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": readOnly.token } });
    expect(sync.status).toBe(403);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call("GET", "/api/v1/properties")).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const syncOk = await fetch(`${server.url}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": ann.token } });
    expect(syncOk.status).toBe(200);
    expect(syncOk.headers.get("ratelimit-limit")).toBe("6");
    expect((await call("GET", "/api/v1/properties", undefined, {}, "cs_unknown")).headers.get("ratelimit-limit")).toBe("3");
    expect(await directRows(store, loft)).toEqual([]);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/calsync_http_requests_total\{method="GET",route="\/api\/v1\/properties",status="429"\} 1/);
    expect(metrics).toMatch(/route="\/api\/v1\/properties\/:id\/reservations",status="403"\} 1/);
  });
});
