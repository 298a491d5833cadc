// Double bookings in the Sync response: real SQLite, real loopback feeds, the engine and the real h3 app.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { createApp } from "../src/server/index.js";
import { generateToken } from "../src/server/tokens.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import type { CalendarSource, SyncResponse } from "../src/types.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";

const dir = mkdtempSync(path.join(tmpdir(), "calsync-"));
let feeds: FeedServer;
let count = 0;
const stores: Store[] = [];

beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => {
  for (const store of stores) await store.close();
  await feeds.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh database with owner Ann and "Sea View Loft", one calendar per feed; `set` replaces a feed. */
async function loft(calendars: Partial<Record<CalendarSource, IcsEvent[]>>) {
  const store = await openStore(path.join(dir, `conflicts-${++count}.db`));
  stores.push(store);
  const owner = await store.createOwner("Ann");
  const property = await store.createProperty(owner.id, "Sea View Loft");
  const paths = new Map<CalendarSource, string>();
  for (const [source, events] of Object.entries(calendars) as Array<[CalendarSource, IcsEvent[]]>) {
    const feedPath = `/conflicts/${count}/${source}.ics`;
    paths.set(source, feedPath);
    await store.createCalendar({ propertyId: property.id, source, url: feeds.url(feedPath, { body: buildIcs(events) }) });
  }
  return {
    store,
    ownerId: owner.id,
    propertyId: property.id,
    set: (source: CalendarSource, events: IcsEvent[]) => feeds.route(paths.get(source)!, { body: buildIcs(events) }),
    sync: (dryRun = false) => syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true, dryRun }),
  };
}

const stay = (uid: string, from: number, to: number, summary = "Reserved"): IcsEvent => ({
  uid,
  start: day(from),
  end: day(to),
  summary,
});

describe("conflicts in the Sync response", () => {
  it("reports nights sold on two channels as one conflict, and the sync still succeeds", async () => {
    const { sync, propertyId } = await loft({
          airbnb: [stay("a1", 10, 15)],
          booking: [stay("b1", 13, 18, "CLOSED - Jane Doe")],
        });
    const response = await sync();
    expect(response.ok).toBe(true);
    expect(response.failed).toBe(0);
    expect(response.conflicts).toEqual([
      {
        propertyId,
        propertyName: "Sea View Loft",
        from: day(13),
        to: day(15),
        reservations: [
          { id: expect.stringMatching(/^rsv_/), source: "airbnb", summary: "Reserved" },
          { id: expect.stringMatching(/^rsv_/), source: "booking", summary: "CLOSED - Jane Doe" },
        ],
      },
    ]);
  });

  it("leaves conflicts out of the response when a guest leaves the day the next one arrives", async () => {
    const { sync } = await loft({ airbnb: [stay("a1", 10, 13)], booking: [stay("b1", 13, 16, "CLOSED - Not available")] });
    const response = await sync();
    expect(response.ok).toBe(true);
    expect(response).not.toHaveProperty("conflicts");
  });

  it("does not count an owner block overlapping a booking", async () => {
    const { sync } = await loft({
          airbnb: [stay("a1", 10, 20, "Airbnb (Not available)")],
          booking: [stay("b1", 12, 14, "CLOSED - Not available")],
        });
    expect(await sync()).not.toHaveProperty("conflicts");
  });

  it("drops the conflict once one of the two bookings is cancelled on its channel", async () => {
    const { sync, set } = await loft({
          airbnb: [stay("a1", 10, 15), stay("a2", 30, 33)],
          booking: [stay("b1", 12, 14, "CLOSED - Not available")],
        });
    expect((await sync()).conflicts).toHaveLength(1);
    set("airbnb", [stay("a2", 30, 33)]);
    const after = await sync();
    expect(after.results.find((r) => r.source === "airbnb")?.result.reservationsCancelled).toBe(1);
    expect(after).not.toHaveProperty("conflicts");
  });

  it("does not warn about a double booking whose nights are all past", async () => {
    const { sync } = await loft({ airbnb: [stay("a1", -12, -8)], booking: [stay("b1", -10, -6, "CLOSED - Not available")] });
    const response = await sync();
    expect(response.results.every((r) => r.result.reservationsCreated === 1)).toBe(true);
    expect(response).not.toHaveProperty("conflicts");
  });

  it("still reports a double booking that began in the past and runs on", async () => {
    const { sync } = await loft({ airbnb: [stay("a1", -3, 4)], booking: [stay("b1", -2, 2, "CLOSED - Not available")] });
    expect((await sync()).conflicts).toMatchObject([{ from: day(-2), to: day(2) }]);
  });

  it("in a dry run, reports the double bookings already stored, not the ones it would write", async () => {
    const { sync } = await loft({ airbnb: [stay("a1", 10, 15)], booking: [stay("b1", 13, 18, "CLOSED - Not available")] });
    const dry = await sync(true);
    expect(dry.results.map((r) => r.result.reservationsCreated)).toEqual([1, 1]);
    expect(dry).not.toHaveProperty("conflicts");
    await sync();
    expect((await sync(true)).conflicts).toHaveLength(1);
  });
});

describe("conflicts through POST /api/v1/calendars/sync", () => {
  it("answers 200 with the conflicts when every calendar synced", async () => {
    const { store, ownerId } = await loft({ airbnb: [stay("a1", 5, 9)], vrbo: [stay("v1", 8, 12, "Reserved - Max")] });
    const generated = generateToken();
    await store.createToken({ ownerId, name: "t", prefix: generated.prefix, hash: generated.hash, expiresAt: null });
    const app = createApp({ store, allowPrivateNetworks: true });
    const res = await app.fetch(
      new Request("http://calsync.test/api/v1/calendars/sync", { method: "POST", headers: { "x-api-key": generated.token } }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as SyncResponse;
    expect(body.conflicts).toMatchObject([
      { propertyName: "Sea View Loft", from: day(8), to: day(9), reservations: [{ source: "airbnb" }, { source: "vrbo" }] },
    ]);
  });
});
