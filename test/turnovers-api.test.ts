// Turnovers through every door (CONTRACT §18) on a real server and both stores with real loopback feeds: the
// property's and the owner's list page by page, the SDK, `calsync turnovers` locally and against the server,
// a booking inside another's buffer flagged tight and no double booking, and bad input refused.
import { describe, expect, it, onTestFinished } from "vitest";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/types.js";
import { CalsyncClient, type Turnover } from "../src/sdk/index.js";
import { runCli } from "./helpers/cli.js";
import { buildIcs, day } from "./helpers/ics.js";
import { ownerWith, post, useServerFixtures } from "./helpers/server-fixtures.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";

describe.each(storeKinds())("turnovers on $name", (kind: StoreKind) => {
  const { newStore, serve, feed } = useServerFixtures(kind);

  const setUp = async (given?: Store) => {
    const store = given ?? (await newStore());
    const ics = (body: string) => feed({ body });
    const ann = await ownerWith(store, "Ann", {
      Loft: [
        { source: "airbnb", url: ics(buildIcs([
          { uid: "a1", start: day(10), end: day(13), summary: "Reserved" },
          { uid: "a2", start: day(17), end: day(20), summary: "Reserved" },
          { uid: "blk", start: day(25), end: day(27), summary: "Airbnb (Not available)" },
        ])) },
        // Sold on Booking.com for the day a1 leaves: inside a1's buffer night, on none of its nights.
        { source: "booking", url: ics(buildIcs([{ uid: "b1", start: day(13), end: day(15), summary: "CLOSED - Not available" }])) },
      ],
      Hut: [{ source: "vrbo", url: ics(buildIcs([{ uid: "v1", start: day(11), end: day(12), summary: "Reserved - Kim" }])) }],
    });
    const bob = await ownerWith(store, "Bob", { Barn: [{ source: "airbnb", url: ics(buildIcs([{ uid: "x", start: day(10), end: day(13), summary: "Reserved" }])) }] });
    const loft = ann.propertyIds.Loft!;
    await store.updateProperty(loft, { bufferNights: 1, checkInTime: "16:00", checkOutTime: "10:00" });
    const server = await serve(store);
    for (const owner of [ann, bob]) {
      const sync = await post(server, owner.token);
      expect(((await sync.json()) as { conflicts?: unknown[] }).conflicts ?? []).toEqual([]);
    }
    const ids = new Map((await store.listReservations({ ownerId: ann.ownerId })).map((r) => [r.uid, r.id]));
    const get = async (path: string, token = ann.token) => {
      const res = await fetch(`${server.url}${path}`, { headers: { "x-api-key": token } });
      return { status: res.status, body: (await res.json()) as { data: Turnover[]; nextCursor: string | null; error?: { code: string; field?: string } } };
    };
    return { store, server, ann, bob, loft, hut: ann.propertyIds.Hut!, ids, get };
  };

  it("lists a property's turnovers with the next arrival, the tight same-day one flagged, blocks never a turnover", async () => {
    const { loft, ids, get } = await setUp();
    const { status, body } = await get(`/api/v1/properties/${loft}/turnovers?from=${day(0)}&to=${day(40)}`);
    expect(status).toBe(200);
    expect(body).toEqual({
      data: [
        { date: day(13), propertyId: loft, departingReservationId: ids.get("a1"), checkOutTime: "10:00", nextArrival: { date: day(13), reservationId: ids.get("b1"), checkInTime: "16:00" }, sameDay: true, tight: true },
        { date: day(15), propertyId: loft, departingReservationId: ids.get("b1"), checkOutTime: "10:00", nextArrival: { date: day(17), reservationId: ids.get("a2"), checkInTime: "16:00" }, sameDay: false, tight: false },
        { date: day(20), propertyId: loft, departingReservationId: ids.get("a2"), checkOutTime: "10:00", nextArrival: null, sameDay: false, tight: false },
      ],
      nextCursor: null,
    });
    // The default range is today + 30 days in the property's zone.
    expect((await get(`/api/v1/properties/${loft}/turnovers`)).body.data).toHaveLength(3);
    expect((await get(`/api/v1/properties/${loft}/turnovers?from=${day(14)}&to=${day(20)}`)).body.data.map((t) => t.date)).toEqual([day(15)]);
  });

  it("lists every property of the owner page by page, never another owner's, through the API and the SDK", async () => {
    const { server, ann, bob, loft, hut, ids, get } = await setUp();
    const seen: Turnover[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(`/api/v1/turnovers?from=${day(0)}&to=${day(40)}&limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      expect(page.body.data).toHaveLength(1);
      seen.push(...page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen.map((t) => [t.date, t.propertyId])).toEqual([[day(12), hut], [day(13), loft], [day(15), loft], [day(20), loft]]);
    expect(seen.find((t) => t.propertyId === hut)).toMatchObject({ checkOutTime: "11:00", nextArrival: null, tight: false });

    const client = new CalsyncClient({ baseURL: server.url, apiKey: ann.token, maxRetries: 0 });
    const viaSdk: Turnover[] = [];
    for await (const t of client.turnovers.list({ propertyId: loft, from: day(0), to: day(40), limit: 2 })) viaSdk.push(t);
    expect(viaSdk.map((t) => t.departingReservationId)).toEqual([ids.get("a1"), ids.get("b1"), ids.get("a2")]);

    expect((await get(`/api/v1/properties/${loft}/turnovers`, bob.token)).status).toBe(404);
    expect((await get(`/api/v1/turnovers?from=${day(0)}&to=${day(40)}`, bob.token)).body.data.map((t) => t.date)).toEqual([day(13)]);
  });

  it("refuses a bad date, range or cursor with 400 naming it", async () => {
    const { loft, get } = await setUp();
    for (const [query, field] of [["from=tomorrow", "from"], [`from=${day(5)}&to=${day(5)}`, "to"], [`from=${day(0)}&to=${day(400)}`, "to"], ["cursor=nope", "cursor"], ["limit=0", "limit"]]) {
      const res = await get(`/api/v1/properties/${loft}/turnovers?${query}`);
      expect([res.status, res.body.error?.code, res.body.error?.field]).toEqual([400, "bad_request", field]);
    }
  });

  it("prints them with calsync turnovers, from the database and from the server, and refuses a bad date with exit 2", async () => {
    // A database of our own, so that the CLI can open it by its location as well.
    const location = await kind.create();
    const own = await openStore(location);
    onTestFinished(() => own.close());
    const { server, ann, loft, ids } = await setUp(own);
    const local = await runCli(["turnovers", "--owner", "Ann", "--property", loft, "--from", day(0), "--to", day(40), "--json", "--db", location]);
    expect(local.code).toBe(0);
    expect((JSON.parse(local.stdout) as Turnover[]).map((t) => [t.date, t.tight])).toEqual([[day(13), true], [day(15), false], [day(20), false]]);
    const remote = await runCli(["turnovers", "--from", day(0), "--to", day(40), "--json"], { env: { CALSYNC_BASE_URL: server.url, CALSYNC_API_KEY: ann.token } });
    expect(remote.code).toBe(0);
    expect((JSON.parse(remote.stdout) as Turnover[]).map((t) => t.departingReservationId)).toHaveLength(4);
    const table = await runCli(["turnovers", "--property", loft, "--from", day(0), "--to", day(40)], { env: { CALSYNC_BASE_URL: server.url, CALSYNC_API_KEY: ann.token } });
    expect(table.stdout).toContain("same day, tight");
    expect(table.stdout).toContain(ids.get("a2")!);
    expect(table.stdout).toContain("none booked");
    const bad = await runCli(["turnovers", "--from", "2027-02-30"], { env: { CALSYNC_BASE_URL: server.url, CALSYNC_API_KEY: ann.token } });
    expect([bad.code, bad.stdout]).toEqual([2, ""]);
  });
});
