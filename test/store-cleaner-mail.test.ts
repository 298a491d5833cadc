// Cleaners by mail (CONTRACT §18) on SQLite and PostgreSQL: one mail per cleaner address when a sync makes a
// turnover of the next 14 days appear, move or disappear, written with the sync; none for a calendar's first
// sync; and each mail's unsubscribe token removes its own address from its own property, once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { UNSUBSCRIBE_KEPT_MS, type CleanerMailPayload } from "../src/store/cleaner-mails.js";
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

const stays = (n: number): IcsEvent[] => Array.from({ length: n }, (_, i) => ({ uid: `s${i}`, start: day(1 + i * 3), end: day(3 + i * 3), summary: "Reserved" }));

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  async function setUp(first: IcsEvent[], cleaners = ["ann@clean.example", "bob@clean.example"]) {
    const store = await openStore(await kind.create());
    stores.push(store);
    const owner = await store.createOwner("Olga", { email: "olga@example.com" });
    const property = await store.createProperty(owner.id, "Loft");
    await store.updateProperty(property.id, { cleanerEmails: cleaners, checkOutTime: "10:00", checkInTime: "16:00" });
    const path = `/c${++count}/a.ics`;
    await store.createCalendar({ propertyId: property.id, source: "airbnb", url: feeds.url(path, { body: buildIcs(first) }) });
    const sync = async (events: IcsEvent[]) => {
      feeds.route(path, { body: buildIcs(events) });
      await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    };
    // The worker's view: claimed, with the recipient and the payload the template reads.
    const claim = async () => {
      const claimed = await store.claimMails({ worker: "t", now: new Date(), until: new Date(Date.now() + 60_000), limit: 50 });
      return claimed.filter((m) => m.kind === "cleaner_turnovers");
    };
    return { store, owner, property, sync, claim };
  }

  it("mails no cleaner for a first sync of 40 stays, each cleaner once for a move and once for a cancellation", async () => {
    const { store, owner, sync, claim } = await setUp(stays(40));
    await syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true });
    expect(await claim()).toEqual([]);

    const moved = stays(40);
    moved[1] = { ...moved[1]!, start: day(5), end: day(7) };
    await sync(moved);
    const first = await claim();
    expect(first.map((m) => [m.to, m.toOwner]).sort()).toEqual([["ann@clean.example", false], ["bob@clean.example", false]]);
    const payload = first[0]!.payload as CleanerMailPayload;
    expect(payload.propertyName).toBe("Loft");
    expect(payload.changes).toContainEqual({ change: "moved", date: day(7), checkOutTime: "10:00", nextArrival: { date: day(7), checkInTime: "16:00" }, sameDay: true, previousDate: day(6) });
    // No guest data: no summary, no reservation id, no channel.
    expect(JSON.stringify(payload.changes)).not.toMatch(/Reserved|rsv_|airbnb/);

    await sync(moved.filter((_, i) => i !== 1));
    expect((await claim()).map((m) => m.to).sort()).toEqual(["ann@clean.example", "bob@clean.example"]);

    // A change past the 14 days is nothing to a cleaner.
    await sync(moved.filter((_, i) => i !== 1 && i !== 30));
    expect(await claim()).toEqual([]);
  });

  it("removes exactly the token's own address, once; another address's token never removes this one", async () => {
    const { store, property, sync, claim } = await setUp(stays(3));
    await sync(stays(3));
    await sync(stays(2));
    const mails = await claim();
    const tokenOf = (to: string) => (mails.find((m) => m.to === to)!.payload as CleanerMailPayload).unsubscribeToken;
    const ann = tokenOf("ann@clean.example");
    const bob = tokenOf("bob@clean.example");
    expect(ann).not.toBe(bob);

    expect(await store.unsubscribeCleaner(ann)).toBe("removed");
    expect((await store.getProperty(property.id))!.cleanerEmails).toEqual(["bob@clean.example"]);
    expect(await store.unsubscribeCleaner(ann)).toBe("already");
    expect((await store.getProperty(property.id))!.cleanerEmails).toEqual(["bob@clean.example"]);
    expect(await store.unsubscribeCleaner("x".repeat(43))).toBe("unknown");

    // Ann listed again by the owner: her used token does not remove her a second time, and Bob's removes only Bob.
    await store.updateProperty(property.id, { cleanerEmails: ["ann@clean.example", "bob@clean.example"] });
    expect(await store.unsubscribeCleaner(ann)).toBe("already");
    expect(await store.unsubscribeCleaner(bob)).toBe("removed");
    expect((await store.getProperty(property.id))!.cleanerEmails).toEqual(["ann@clean.example"]);
  });

  it("keeps an unsubscribe link working for a year after its mail, then prunes its row", async () => {
    const { store, property, sync, claim } = await setUp(stays(3));
    await sync(stays(3));
    await sync(stays(2));
    const mails = await claim();
    const tokenOf = (to: string) => (mails.find((m) => m.to === to)!.payload as CleanerMailPayload).unsubscribeToken;
    const [ann, bob] = [tokenOf("ann@clean.example"), tokenOf("bob@clean.example")];
    expect(await store.unsubscribeCleaner(ann)).toBe("removed");
    const later = (ms: number) => new Date(Date.now() + ms);

    await store.pruneMails(later(0), later(UNSUBSCRIBE_KEPT_MS - 86_400_000));
    expect(await store.unsubscribeCleaner(ann)).toBe("already");
    expect(await store.unsubscribeCleaner(bob)).toBe("removed");
    await store.updateProperty(property.id, { cleanerEmails: ["bob@clean.example"] });

    await store.pruneMails(later(0), later(UNSUBSCRIBE_KEPT_MS + 86_400_000));
    expect(await store.unsubscribeCleaner(ann)).toBe("unknown");
    expect(await store.unsubscribeCleaner(bob)).toBe("unknown");
    expect((await store.getProperty(property.id))!.cleanerEmails).toEqual(["bob@clean.example"]);
  });

  it("drops a queued mail whose address left the list before it was sent, and sends the others", async () => {
    const { store, owner, property, sync, claim } = await setUp(stays(3), ["ann@clean.example", "bob@clean.example", "cy@clean.example"]);
    await sync(stays(3));
    await sync(stays(2));
    const tokenOf = async () => {
      const mails = await claim();
      return (to: string) => (mails.find((m) => m.to === to)!.payload as CleanerMailPayload).unsubscribeToken;
    };
    const first = await tokenOf();
    // Two more mails each are queued, then Ann unsubscribes with her first mail's link and the owner takes Bob off.
    await sync(stays(1));
    expect(await store.unsubscribeCleaner(first("ann@clean.example"))).toBe("removed");
    await store.updateProperty(property.id, { cleanerEmails: ["cy@clean.example"] });

    const later = await store.claimMails({ worker: "t2", now: new Date(), until: new Date(Date.now() + 60_000), limit: 50 });
    expect(later.filter((m) => m.kind === "cleaner_turnovers").map((m) => m.to)).toEqual(["cy@clean.example"]);
    const dropped = (await store.listMails(owner.id)).filter((m) => m.status === "failed");
    expect(dropped).toHaveLength(2);
    for (const mail of dropped) expect(mail.lastError).toMatch(/no longer on the property's cleaner list/);
  });
});
