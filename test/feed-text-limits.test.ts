// Feed text PostgreSQL cannot store as it came (CONTRACT §10: every guarantee holds on both stores): a NUL
// character, and a UID of kilobytes, over the 2704 bytes of a (calendar, UID) index row. Either failed the
// owner's whole run there, sync after sync, while SQLite took it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";
import { storeKinds } from "./helpers/stores.js";

let feeds: FeedServer;
let count = 0;
beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => {
  await feeds.close();
});

// Random, so that PostgreSQL cannot compress it under the index's limit.
const noise = (chars: number) => Array.from({ length: Math.ceil(chars / 6) }, () => Math.random().toString(36).slice(2, 8).padEnd(6, "0")).join("");

describe.each(storeKinds())("a feed holding what PostgreSQL cannot store ($name)", (kind) => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
    await kind.dispose();
  });

  it("syncs a UID of kilobytes and a NUL character like any other event, and finds nothing changed the next time", async () => {
    const store = await openStore(await kind.create());
    stores.push(store);
    const ann = await store.createOwner("Ann");
    const property = await store.createProperty(ann.id, "Loft");
    const path = `/limits/${++count}.ics`;
    const longUid = noise(6000);
    const body = buildIcs([
      { uid: longUid, start: day(10), end: day(12), summary: "Reserved" },
      { uid: "nul", start: day(20), end: day(22), summary: "Reserved" },
    ]).replace("SUMMARY:Reserved\r\nEND:VEVENT\r\nEND:VCALENDAR", "SUMMARY:Res\0erved\r\nEND:VEVENT\r\nEND:VCALENDAR");
    await store.createCalendar({ propertyId: property.id, source: "other", url: feeds.url(path, { body }) });
    const sync = async () => (await syncOwner({ store, ownerId: ann.id, allowPrivateNetworks: true })).results[0]!.result;

    expect(await sync()).toMatchObject({ status: "success", reservationsFound: 2, reservationsCreated: 2 });
    const stored = await store.listReservations({ ownerId: ann.id });
    expect(stored.map((r) => r.summary)).toEqual(["Reserved", "Reserved"]);
    expect(Math.max(...stored.map((r) => r.uid.length))).toBeLessThan(200);
    // Parsed again (a new body): the same identities, so nothing changed.
    feeds.setRoute(path, { body: body.replace("PRODID:", "PRODID:again ") });
    expect(await sync()).toMatchObject({ status: "success", reservationsFound: 2, reservationsCreated: 0, reservationsUpdated: 0, reservationsCancelled: 0 });

    // The long UID with dates that cannot be read keeps its stored stay, as any unreadable event does.
    feeds.setRoute(path, { body: body.replace(`DTSTART;VALUE=DATE:${day(10).replaceAll("-", "")}`, "DTSTART;VALUE=DATE:20271340") });
    expect(await sync()).toMatchObject({ status: "success", reservationsFound: 2, reservationsCancelled: 0 });
    expect((await store.listReservations({ ownerId: ann.id, status: "active" })).length).toBe(2);
  });
});
