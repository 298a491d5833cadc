// Owners' booking mails (CONTRACT §18 "Booking mails to owners") on SQLite and PostgreSQL: off by default; when
// on, one mail per sync that created, moved or cancelled bookings: each calendar's changes are written with its
// sync, and the worker sends the run's as one mail once the owner's run is over; none for a calendar's first
// sync (its backlog), a summary-only change, or a block (an echo is a block).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { renderMail } from "../src/server/mail/templates.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";
import { storeKinds } from "./helpers/stores.js";

let feeds: FeedServer;
let count = 0;
beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(() => feeds.close());

const stays = (n: number): IcsEvent[] => Array.from({ length: n }, (_, i) => ({ uid: `s${i}`, start: day(3 + i * 3), end: day(5 + i * 3), summary: "Reserved" }));

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  async function setUp(first: IcsEvent[], bookings: boolean) {
    const store = await openStore(await kind.create());
    stores.push(store);
    const owner = await store.createOwner("Ann", { email: "ann@example.com" });
    const property = await store.createProperty(owner.id, "Loft");
    const path = `/b${++count}/a.ics`;
    await store.createCalendar({ propertyId: property.id, source: "airbnb", url: feeds.url(path, { body: buildIcs(first) }) });
    if (bookings) await store.setOwnerNotifications(owner.id, { ...(await store.ownerNotifications(owner.id)), bookings: true });
    const sync = async (events: IcsEvent[]) => {
      feeds.route(path, { body: buildIcs(events) });
      await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    };
    const mails = async () => (await store.listMails(owner.id)).filter((m) => m.kind === "bookings_changed");
    return { store, owner, sync, mails };
  }

  it("is off by default: a moved and a cancelled booking write no mail", async () => {
    const { store, owner, sync, mails } = await setUp(stays(3), false);
    expect((await store.ownerNotifications(owner.id)).bookings).toBe(false);
    await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    await sync([{ ...stays(3)[0]!, start: day(2) }, stays(3)[1]!]);
    expect(await mails()).toEqual([]);
  });

  it("writes none for a first sync of 40 stays, one for a move, one for a cancellation, none for a summary or a block", async () => {
    const { store, owner, sync, mails } = await setUp(stays(40), true);
    await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    expect(await store.listMails(owner.id)).toEqual([]);

    const moved = stays(40);
    moved[0] = { ...moved[0]!, start: day(2) };
    await sync(moved);
    expect(await mails()).toHaveLength(1);

    await sync(moved.slice(1));
    expect(await mails()).toHaveLength(2);

    // Only the summary changed: no mail. A block appearing (an echo is one) is no booking either.
    const renamed = moved.slice(1).map((e, i) => (i === 0 ? { ...e, summary: "Reserved - Bob" } : e));
    await sync(renamed);
    await sync([...renamed, { uid: "blk", start: day(200), end: day(202), summary: "Not available" }]);
    expect(await mails()).toHaveLength(2);
  });

  it("never writes one for a calendar whose first attempt failed and whose first success brings its backlog", async () => {
    const { store, owner, mails } = await setUp([], true);
    const [calendar] = await store.listCalendars({ ownerId: owner.id });
    const path = new URL(calendar!.url).pathname;
    feeds.route(path, { status: 500 });
    await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    feeds.route(path, { body: buildIcs(stays(5)) });
    await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    expect(await mails()).toEqual([]);
  });

  it("sends one mail for a run that changed bookings on two properties, and only once the run is over", async () => {
    const { store, owner, sync, mails } = await setUp(stays(3), true);
    const second = await store.createProperty(owner.id, "Barn");
    const path = `/b${++count}/booking.ics`;
    await store.createCalendar({ propertyId: second.id, source: "booking", url: feeds.url(path, { body: buildIcs(stays(2)) }) });
    await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    feeds.route(path, { body: buildIcs(stays(1)) });
    await sync(stays(2));
    // Written per calendar, in each calendar's transaction.
    expect(await mails()).toHaveLength(2);

    const claim = () => store.claimMails({ worker: "w", now: new Date(), until: new Date(Date.now() + 60_000), limit: 10 });
    const lease = { ownerId: owner.id, runId: "run_next", holder: "test", ttlMs: 60_000 };
    await store.acquireSyncLease(lease);
    expect((await claim()).filter((m) => m.kind === "bookings_changed")).toEqual([]);
    await store.releaseSyncLease(lease);

    const claimed = (await claim()).filter((m) => m.kind === "bookings_changed");
    expect(claimed).toHaveLength(1);
    expect(await mails()).toHaveLength(1);
    const rendered = renderMail("bookings_changed", claimed[0]!.payload, { ownerName: "Ann", baseUrl: "https://calsync.example" });
    expect(rendered.subject).toBe("2 bookings changed: Barn, Loft");
    expect(rendered.text.indexOf("Booking.com changed these bookings of Barn:")).toBeLessThan(rendered.text.indexOf("Airbnb changed these bookings of Loft:"));
    expect(rendered.text).toContain("Airbnb changed these bookings of Loft:");
    expect(rendered.text).toContain("Booking.com changed these bookings of Barn:");
    expect(rendered.text).toContain(`https://calsync.example/properties/${second.id}/timeline`);
  });
});
