// A link read far more often than a channel does (a client polling every few minutes) on SQLite and
// PostgreSQL: the channels answer counts every read of the 7 days, takes its usual interval from the latest
// hundred, and leaves out reads older than the 7 days and later than now.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { channelsOf } from "../src/resources/channels.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { storeKinds } from "./helpers/stores.js";

const MINUTE = 60_000;

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  it("counts 400 reads in the 7 days and takes the usual interval from the latest hundred", async () => {
    const store = await openStore(await kind.create());
    stores.push(store);
    const owner = await store.createOwner("Ann");
    const property = await store.createProperty(owner.id, "Loft");
    await store.createCalendar({ propertyId: property.id, source: "booking", url: "https://example.invalid/b.ics" });
    const now = new Date();
    const read = (at: number) =>
      store.recordOutboundFetch({ propertyId: property.id, exclude: ["booking"], etag: '"e"', nights: [], at: new Date(at), userAgent: "Booking.com" });
    // 8 days ago, every 30 minutes (outside the window), then the last 400 reads: 300 every 20 minutes and
    // the latest 100 every 5 minutes, and one read stamped in the future by a skewed clock.
    for (let i = 0; i < 10; i++) await read(now.getTime() - 8 * 1440 * MINUTE + i * 30 * MINUTE);
    const start = now.getTime() - (300 * 20 + 100 * 5) * MINUTE;
    for (let i = 0; i < 300; i++) await read(start + i * 20 * MINUTE);
    for (let i = 0; i < 100; i++) await read(start + 300 * 20 * MINUTE + i * 5 * MINUTE);
    await read(now.getTime() + 10 * MINUTE);

    const [booking] = await channelsOf(store, property, { feedBase: "http://127.0.0.1:8787", now });
    expect(booking).toMatchObject({ source: "booking", reads7d: 400, usualIntervalSeconds: 300 });
  });
});
