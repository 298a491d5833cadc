// Direct stays through the resource functions every door calls (CONTRACT §14), on SQLite and PostgreSQL, with
// a real feed on loopback and the real engine as the refresh.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { cancelDirectStay, createDirectStay, listReservations, propertyAvailability, updateDirectStay, type ResourceContext } from "../src/resources/index.js";
import { createPropertyRefresh } from "../src/resources/property-refresh.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";

let feeds: FeedServer;
beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(() => feeds.close());

describe.each(storeKinds())("direct stays on $name", (kind: StoreKind) => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  let count = 0;
  const setUp = async () => {
    const store = await openStore(await kind.create());
    stores.push(store);
    const owner = await store.createOwner("Ann");
    const property = await store.createProperty(owner.id, "Loft");
    const path = `/direct-${kind.name}-${++count}.ics`;
    feeds.setRoute(path, { body: buildIcs([{ uid: "a1", start: day(10), end: day(13), summary: "Reserved" }]) });
    const calendar = await store.createCalendar({ propertyId: property.id, url: feeds.url(path), source: "airbnb" });
    // A refresh skips a calendar fetched in the last minute: `later()` moves the clock past that.
    let at = Date.now();
    const now = () => new Date(at);
    const later = () => (at += 61_000);
    const ctx: ResourceContext = { store, now, refresh: createPropertyRefresh({ store, now, allowPrivateNetworks: true }) };
    return { store, owner, property, calendar, path, ctx, later };
  };
  const body = (arrival: number, departure: number, extra: Record<string, unknown> = {}) => ({ kind: "booking", arrival: day(arrival), departure: day(departure), ...extra });

  it("stores a stay in a direct calendar that no sync fetches or reports", async () => {
    const { store, owner, property, ctx } = await setUp();
    const made = await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: body(20, 23, { summary: "Phone: Mr Lee", note: "late arrival" }) });
    expect(made).toMatchObject({ ok: true, status: 201, warnings: [] });
    if (!made.ok) return;
    expect(made.reservation).toMatchObject({ source: "direct", kind: "booking", status: "active", arrival: day(20), departure: day(23), summary: "Phone: Mr Lee", note: "late arrival", echoOf: null });
    expect((await store.listCalendars({ propertyId: property.id })).map((c) => c.source)).toEqual(["airbnb"]);
    expect((await store.listCalendars({ propertyId: property.id, includeDirect: true })).map((c) => c.source)).toEqual(["airbnb", "direct"]);
    const run = await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    expect(run.syncedCalendars).toBe(1);
    expect(run.results.map((r) => r.source)).toEqual(["airbnb"]);
  });

  it("refuses nights a channel holds, naming the stay, and sees a booking added to the feed after the last sync", async () => {
    const { owner, property, path, ctx, later } = await setUp();
    await ctx.refresh(owner.id, property.id);
    later();
    feeds.setRoute(path, { body: buildIcs([{ uid: "a1", start: day(10), end: day(13) }, { uid: "a2", start: day(30), end: day(33), summary: "Reserved" }]) });
    const refused = await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: body(31, 35) });
    expect(refused).toMatchObject({ ok: false, status: 409, code: "nights_unavailable", conflicts: [{ source: "airbnb", arrival: day(30), departure: day(33) }] });
    const taken = await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: body(12, 14, { refresh: false }) });
    expect(taken).toMatchObject({ status: 409, conflicts: [{ source: "airbnb", arrival: day(10), departure: day(13) }] });
    expect(await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: body(13, 15) })).toMatchObject({ ok: true, status: 201 });
  });

  it("names a calendar that could not be refreshed and checks it as stored", async () => {
    const { owner, property, calendar, path, ctx, later } = await setUp();
    await ctx.refresh(owner.id, property.id);
    later();
    feeds.setRoute(path, { status: 503 });
    const made = await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: body(40, 42) });
    expect(made).toMatchObject({ ok: true, warnings: [{ code: "calendar_not_refreshed", calendarId: calendar.id }] });
    expect(await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: body(11, 12) })).toMatchObject({ status: 409 });
  });

  it("moves, cancels and frees a stay; a channel's reservation is read-only", async () => {
    const { store, owner, property, ctx } = await setUp();
    const first = await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: body(20, 23, { refresh: false }) });
    const second = await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: body(25, 27, { refresh: false }) });
    if (!first.ok || !second.ok) throw new Error("not created");
    expect(await updateDirectStay(ctx, { ownerId: owner.id, reservationId: first.reservation.id, body: { departure: day(26), refresh: false } })).toMatchObject({ status: 409, conflicts: [{ reservationId: second.reservation.id, source: "direct" }] });
    expect(await updateDirectStay(ctx, { ownerId: owner.id, reservationId: first.reservation.id, body: { arrival: day(21), note: "moved" } })).toMatchObject({ ok: true, status: 200, reservation: { arrival: day(21), departure: day(23), note: "moved" } });
    expect(await cancelDirectStay(ctx, { ownerId: owner.id, reservationId: second.reservation.id })).toMatchObject({ ok: true, reservation: { status: "cancelled" } });
    expect(await updateDirectStay(ctx, { ownerId: owner.id, reservationId: first.reservation.id, body: { departure: day(27), refresh: false } })).toMatchObject({ ok: true });
    const channel = (await store.listReservations({ propertyId: property.id })).find((r) => r.source === "airbnb")!;
    expect(await cancelDirectStay(ctx, { ownerId: owner.id, reservationId: channel.id })).toMatchObject({ status: 409, code: "not_direct" });
    const other = await store.createOwner("Bob");
    expect(await cancelDirectStay(ctx, { ownerId: other.id, reservationId: first.reservation.id })).toMatchObject({ status: 404, code: "not_found" });
    expect(await createDirectStay(ctx, { ownerId: other.id, propertyId: property.id, body: body(50, 52) })).toMatchObject({ status: 404 });
  });

  it("answers an Idempotency-Key's first answer again, and refuses it with another body", async () => {
    const { store, owner, property, ctx } = await setUp();
    const idempotency = { key: "k-1", route: `POST /api/v1/properties/${property.id}/reservations` };
    const first = await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: body(20, 22, { refresh: false }), idempotency });
    const again = await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: { refresh: false, departure: day(22), arrival: day(20), kind: "booking" }, idempotency });
    expect(again).toEqual({ ...first, replayed: true });
    expect(await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: body(20, 23), idempotency })).toMatchObject({ status: 422, code: "idempotency_key_reused" });
    expect((await store.listReservations({ propertyId: property.id })).filter((r) => r.source === "direct")).toHaveLength(1);
  });

  it("keeps under an Idempotency-Key only 2xx answers and 409 nights_unavailable", async () => {
    const { store, owner, property, ctx } = await setUp();
    await ctx.refresh(owner.id, property.id);
    const channel = (await store.listReservations({ propertyId: property.id })).find((r) => r.source === "airbnb")!;
    // 409 not_direct changed nothing: the key is not spent, so another body under it is answered afresh.
    const patch = { key: "k-not-direct", route: `PATCH /api/v1/reservations/${channel.id}` };
    expect(await updateDirectStay(ctx, { ownerId: owner.id, reservationId: channel.id, body: { note: "a" }, idempotency: patch })).toMatchObject({ status: 409, code: "not_direct" });
    expect(await updateDirectStay(ctx, { ownerId: owner.id, reservationId: channel.id, body: { note: "b" }, idempotency: patch })).toMatchObject({ status: 409, code: "not_direct" });
    expect(await store.findIdempotencyRecord({ ownerId: owner.id, ...patch, since: new Date(0) })).toBeUndefined();
    // 409 nights_unavailable is kept: another body under the same key is refused as a reused key.
    const post = { key: "k-taken", route: `POST /api/v1/properties/${property.id}/reservations` };
    const taken = await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: body(11, 12, { refresh: false }), idempotency: post });
    expect(taken).toMatchObject({ status: 409, code: "nights_unavailable" });
    expect(await store.findIdempotencyRecord({ ownerId: owner.id, ...post, since: new Date(0) })).toMatchObject({ status: 409 });
    expect(await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: body(40, 41, { refresh: false }), idempotency: post })).toMatchObject({ status: 422, code: "idempotency_key_reused" });
  });

  it("keeps at most 1,000 Idempotency-Keys per owner, forgetting the oldest first", async () => {
    const location = await kind.create();
    const store = await openStore(location);
    stores.push(store);
    const ann = await store.createOwner("Ann");
    const bob = await store.createOwner("Bob");
    const property = await store.createProperty(ann.id, "Loft");
    const ctx: ResourceContext = { store, refresh: createPropertyRefresh({ store, allowPrivateNetworks: true }) };
    // 1,000 answers already kept for Ann (a second apart, k-0000 the oldest) and one for Bob, all within 24 h.
    const start = Date.now() - 3_600_000;
    const row = (owner: string, key: string, i: number) => `('${owner}', 'DELETE /api/v1/reservations/rsv_x', '${key}', 'hash', 200, '{}', '${new Date(start + i * 1000).toISOString()}')`;
    const rows = Array.from({ length: 1000 }, (_, i) => row(ann.id, `k-${String(i).padStart(4, "0")}`, i));
    rows.push(row(bob.id, "k-bob", -1));
    await kind.query(location, `INSERT INTO idempotency_keys (owner_id, route, key, request_hash, status, body, created_at) VALUES ${rows.join(", ")}`);
    const keysOf = async (ownerId: string) =>
      (await kind.query(location, "SELECT key FROM idempotency_keys WHERE owner_id = ? ORDER BY key", [ownerId])).map((r) => r.key as string);

    const idempotency = { key: "k-new", route: `POST /api/v1/properties/${property.id}/reservations` };
    expect(await createDirectStay(ctx, { ownerId: ann.id, propertyId: property.id, body: body(20, 22, { refresh: false }), idempotency })).toMatchObject({ status: 201 });
    const kept = await keysOf(ann.id);
    expect(kept).toHaveLength(1000);
    expect(kept).not.toContain("k-0000");
    expect(kept).toContain("k-0001");
    expect(kept).toContain("k-new");
    expect(await keysOf(bob.id)).toEqual(["k-bob"]);
  });

  it("refuses every bad body with 422 naming the field, writing nothing", async () => {
    const { store, owner, property, ctx } = await setUp();
    const cases: Array<[unknown, string]> = [
      [null, "body"], [[1], "body"], [{ ...body(20, 22), guests: 2 }, "guests"], [{ ...body(20, 22), kind: "stay" }, "kind"],
      [{ ...body(20, 22), arrival: "2027-02-30" }, "arrival"], [{ ...body(20, 22), departure: "tomorrow" }, "departure"],
      [body(22, 22), "departure"], [body(-5, -1), "departure"], [body(1, 400), "departure"], [{ ...body(20, 22), summary: 5 }, "summary"],
      [{ ...body(20, 22), refresh: "no" }, "refresh"], [{ kind: "block", arrival: day(2) }, "departure"],
    ];
    for (const [given, field] of cases) {
      expect(await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: given })).toMatchObject({ status: 422, code: "invalid_request", field });
    }
    expect((await store.listReservations({ propertyId: property.id })).filter((r) => r.source === "direct")).toEqual([]);
  });

  it("walks every reservation once, page by page, and answers availability with the same rule", async () => {
    const { owner, property, ctx, store } = await setUp();
    for (let i = 0; i < 7; i++) await createDirectStay(ctx, { ownerId: owner.id, propertyId: property.id, body: body(20 + i * 2, 21 + i * 2, { refresh: false }) });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listReservations(store, { ownerId: owner.id, propertyId: property.id, query: { limit: "3", status: "all", ...(cursor ? { cursor } : {}) } });
      if (!page.ok) throw new Error(page.message);
      seen.push(...page.value.data.map((r) => r.id));
      cursor = page.value.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    expect(await listReservations(store, { ownerId: owner.id, propertyId: property.id, query: { cursor: "nope" } })).toMatchObject({ status: 400, field: "cursor" });
    const nights = await propertyAvailability(store, { ownerId: owner.id, propertyId: property.id, query: { from: day(19), to: day(23) } });
    expect(nights.ok && nights.value.nights.map((n) => n.available)).toEqual([true, false, true, false]);
    expect(await propertyAvailability(store, { ownerId: owner.id, propertyId: property.id, query: { from: day(19), to: day(19) } })).toMatchObject({ status: 400, field: "to" });
  });
});
