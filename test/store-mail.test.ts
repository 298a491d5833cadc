// The mail outbox (CONTRACT §16) on SQLite and PostgreSQL: mails written with the change that causes them,
// per the owner's settings; claims that give each mail to one worker of several; a payload (an invite or reset
// link) forgotten once the mail is sent or given up; mails that ran out of time never sent.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { openStore } from "../src/store/index.js";
import type { QueuedMail, Store } from "../src/store/types.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";
import { storeKinds } from "./helpers/stores.js";

let feeds: FeedServer;
let count = 0;
beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(() => feeds.close());

const HOUR = 3_600_000;
const link = (expiresAt: Date): QueuedMail => ({ kind: "password_reset", payload: { url: "https://cal.example/reset/x", expiresAt: expiresAt.toISOString() }, expiresAt });

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  let location = "";
  const open = async (n = 1) => {
    location = await kind.create();
    const opened = await Promise.all(Array.from({ length: n }, () => openStore(location)));
    stores.push(...opened);
    return opened;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  it("writes a double booking's mail with the sync, per the owner's settings, and none for an owner without an email", async () => {
    const [store] = await open();
    const owner = await store!.createOwner("Ann", { email: "ann@example.com" });
    const property = await store!.createProperty(owner.id, "Loft");
    const n = ++count;
    await store!.createCalendar({ propertyId: property.id, source: "airbnb", url: feeds.url(`/m${n}/a.ics`, { body: buildIcs([{ uid: "a", start: day(5), end: day(9), summary: "R" }]) }) });
    await store!.createCalendar({ propertyId: property.id, source: "booking", url: feeds.url(`/m${n}/b.ics`, { body: buildIcs([{ uid: "b", start: day(7), end: day(10), summary: "R" }]) }) });
    expect(await store!.ownerNotifications(owner.id)).toEqual({ conflicts: true, calendars: true, channels: true });

    await syncOwner({ store: store!, ownerId: owner.id, allowPrivateNetworks: true });
    const mails = await store!.listMails(owner.id);
    expect(mails).toMatchObject([{ ownerId: owner.id, kind: "booking_conflict", status: "pending", attempts: 0 }]);

    // Off: the same double booking, forgotten and seen again, writes no mail.
    await store!.setOwnerNotifications(owner.id, { conflicts: false, calendars: true, channels: true });
    expect(await store!.ownerNotifications(owner.id)).toEqual({ conflicts: false, calendars: true, channels: true });
    feeds.route(`/m${n}/b.ics`, { body: buildIcs([]) });
    await syncOwner({ store: store!, ownerId: owner.id, allowPrivateNetworks: true });
    feeds.route(`/m${n}/b.ics`, { body: buildIcs([{ uid: "b", start: day(7), end: day(10), summary: "R" }]) });
    await syncOwner({ store: store!, ownerId: owner.id, allowPrivateNetworks: true });
    expect(await store!.listMails(owner.id)).toHaveLength(1);

    // On again, but no email: nothing, and the sync is fine.
    await store!.setOwnerNotifications(owner.id, { conflicts: true, calendars: true, channels: true });
    await store!.setOwnerEmail(owner.id, null);
    feeds.route(`/m${n}/b.ics`, { body: buildIcs([]) });
    await syncOwner({ store: store!, ownerId: owner.id, allowPrivateNetworks: true });
    feeds.route(`/m${n}/b.ics`, { body: buildIcs([{ uid: "b", start: day(7), end: day(10), summary: "R" }]) });
    const response = await syncOwner({ store: store!, ownerId: owner.id, allowPrivateNetworks: true });
    expect(response.ok).toBe(true);
    expect(response.conflicts).toHaveLength(1);
    expect(await store!.listMails(owner.id)).toHaveLength(1);
  });

  it("gives each mail to one of two workers, and forgets its link once sent", async () => {
    const [one, two] = await open(2);
    const owner = await one!.createOwner("Ann", { email: "ann@example.com" });
    const expiresAt = new Date(Date.now() + HOUR);
    await one!.createInvite({ ownerId: owner.id, hash: "a".repeat(64), expiresAt, mail: link(expiresAt) });
    const now = new Date(Date.now() + 1);
    const until = new Date(now.getTime() + 60_000);
    const [first, second] = await Promise.all([
      one!.claimMails({ worker: "w1", now, until, limit: 5 }),
      two!.claimMails({ worker: "w2", now, until, limit: 5 }),
    ]);
    const claimed = [...first, ...second];
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({ ownerName: "Ann", to: "ann@example.com", kind: "password_reset", attempts: 0 });
    expect(claimed[0]!.payload).toEqual({ url: "https://cal.example/reset/x", expiresAt: expect.any(String) });
    const worker = first.length > 0 ? "w1" : "w2";

    // A failed attempt keeps it (and its payload) for the retry; another worker's finish is ignored.
    await one!.finishMail({ id: claimed[0]!.id, worker, at: now, sent: false, error: "ECONNECTION", nextAttemptAt: now });
    const [again] = await two!.claimMails({ worker: "w3", now: new Date(now.getTime() + 1), until, limit: 5 });
    expect(await one!.claimMails({ worker: "w4", now: new Date(now.getTime() + 2), until, limit: 5 })).toEqual([]);
    expect(again).toMatchObject({ id: claimed[0]!.id, attempts: 1, payload: claimed[0]!.payload });
    await one!.finishMail({ id: again!.id, worker: "w1", at: now, sent: true, error: null, nextAttemptAt: null });
    expect((await one!.listMails())[0]).toMatchObject({ status: "pending", attempts: 1 });
    await one!.finishMail({ id: again!.id, worker: "w3", at: now, sent: true, error: null, nextAttemptAt: null });
    expect((await one!.listMails())[0]).toMatchObject({ status: "sent", attempts: 2, lastError: null, nextAttemptAt: null });
    const rows = await kind.query(location, "SELECT payload FROM mail_outbox");
    expect(rows).toEqual([{ payload: null }]);
  });

  it("never sends a mail past its time, and gives it up", async () => {
    const [store] = await open();
    const owner = await store!.createOwner("Ann", { email: "ann@example.com" });
    const now = new Date();
    await store!.createInvite({ ownerId: owner.id, hash: "b".repeat(64), expiresAt: new Date(now.getTime() + HOUR), mail: link(new Date(now.getTime() + HOUR)) });
    const later = new Date(now.getTime() + 2 * HOUR);
    expect(await store!.claimMails({ worker: "w", now: later, until: new Date(later.getTime() + 60_000), limit: 5 })).toEqual([]);
    await store!.pruneMails(new Date(now.getTime() - HOUR), later);
    expect((await store!.listMails())[0]).toMatchObject({ status: "failed", lastError: "not sent in time" });
    expect(await kind.query(location, "SELECT payload FROM mail_outbox")).toEqual([{ payload: null }]);
  });
});
