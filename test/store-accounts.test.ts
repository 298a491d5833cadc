// The store's side of the dashboard (CONTRACT §9) on SQLite and PostgreSQL: owners' emails and password
// hashes, one-time invites, sessions and failed sign-ins. Two store objects on one database stand for
// two processes or instances.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { storeKinds } from "./helpers/stores.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const hash = (c: string) => c.repeat(64);

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  /** `n` stores on one fresh database. */
  const open = async (n = 1) => {
    const location = await kind.create();
    const opened = await Promise.all(Array.from({ length: n }, () => openStore(location)));
    stores.push(...opened);
    return opened;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  describe("owners' sign-in names and passwords", () => {
    it("finds an owner by email, changes and clears it, and keeps one email to one owner", async () => {
      const [store] = await open();
      const ann = await store!.createOwner("Ann", { email: "ann@example.com" });
      const ben = await store!.createOwner("Ben");
      expect(ann).toEqual({ id: ann.id, name: "Ann", email: "ann@example.com", createdAt: ann.createdAt });
      expect(ben.email).toBeNull();
      expect(await store!.findOwnerByEmail("ann@example.com")).toEqual(ann);
      await expect(store!.setOwnerEmail(ben.id, "ann@example.com")).rejects.toThrow();
      await expect(store!.createOwner("Ann again", { email: "ann@example.com" })).rejects.toThrow();

      await store!.setOwnerEmail(ann.id, "ann@new.example");
      await store!.setOwnerEmail(ben.id, "ann@example.com");
      expect((await store!.findOwnerByEmail("ann@example.com"))?.id).toBe(ben.id);
      await store!.setOwnerEmail(ann.id, null);
      await store!.setOwnerEmail(ben.id, null); // several owners without one
      expect(await store!.findOwnerByEmail("ann@new.example")).toBeUndefined();
      expect((await store!.listOwners()).map((o) => o.email)).toEqual([null, null]);
    });

    it("keeps the password hash out of every owner record and ends the owner's sessions when it changes", async () => {
      const [store] = await open();
      const ann = await store!.createOwner("Ann", { email: "ann@example.com" });
      const ben = await store!.createOwner("Ben", { email: "ben@example.com" });
      expect(await store!.ownerPasswordHash(ann.id)).toBeNull();
      await store!.setOwnerPassword(ann.id, "scrypt$one");
      for (const owner of [await store!.getOwner(ann.id), ...(await store!.listOwners()), await store!.findOwnerByEmail("ann@example.com")]) {
        expect(Object.keys(owner!).sort()).toEqual(["createdAt", "email", "id", "name"]);
      }
      const now = new Date();
      await store!.createSession({ ownerId: ann.id, hash: hash("a"), at: now });
      await store!.createSession({ ownerId: ann.id, hash: hash("b"), at: now });
      await store!.createSession({ ownerId: ben.id, hash: hash("c"), at: now });

      await store!.setOwnerPassword(ann.id, "scrypt$two");
      expect(await store!.ownerPasswordHash(ann.id)).toBe("scrypt$two");
      expect(await store!.findSession(hash("a"))).toBeUndefined();
      expect(await store!.findSession(hash("b"))).toBeUndefined();
      expect((await store!.findSession(hash("c")))?.ownerId).toBe(ben.id);
    });
  });

  describe("invites", () => {
    it("finds an open invite until it expires or is used", async () => {
      const [store] = await open();
      const ann = await store!.createOwner("Ann");
      const now = new Date();
      const invite = await store!.createInvite({ ownerId: ann.id, hash: hash("i"), expiresAt: new Date(now.getTime() + 72 * HOUR) });
      expect(invite).toEqual({ id: expect.stringMatching(/^inv_/), ownerId: ann.id, createdAt: expect.any(String), expiresAt: invite.expiresAt, usedAt: null });
      expect(await store!.findInvite(hash("i"), now)).toEqual(invite);
      expect(await store!.findInvite(hash("i"), new Date(now.getTime() + 72 * HOUR))).toBeUndefined();
      expect(await store!.consumeInvite(hash("i"), new Date(now.getTime() + 73 * HOUR))).toBeUndefined();
      expect(await store!.findInvite(hash("x"), now)).toBeUndefined();
      expect(await store!.consumeInvite(hash("x"), now)).toBeUndefined();
    });

    it("uses an invite once and retires the owner's other open invites, not another owner's", async () => {
      const [store] = await open();
      const ann = await store!.createOwner("Ann");
      const ben = await store!.createOwner("Ben");
      const now = new Date();
      const later = new Date(now.getTime() + 72 * HOUR);
      for (const [ownerId, c] of [[ann.id, "a"], [ann.id, "b"], [ben.id, "c"]] as const) {
        await store!.createInvite({ ownerId, hash: hash(c), expiresAt: later });
      }
      expect(await store!.consumeInvite(hash("a"), now)).toBe(ann.id);
      expect(await store!.consumeInvite(hash("a"), now)).toBeUndefined();
      expect(await store!.consumeInvite(hash("b"), now)).toBeUndefined();
      expect(await store!.findInvite(hash("b"), now)).toBeUndefined();
      expect((await store!.findInvite(hash("c"), now))?.ownerId).toBe(ben.id);
    });

    it("lets one of several processes use a link posted at the same moment, and only one of an owner's links", async () => {
      const processes = await open(4);
      const [first] = processes;
      const ann = await first!.createOwner("Ann");
      const ben = await first!.createOwner("Ben");
      const later = new Date(Date.now() + HOUR);
      for (const c of ["a", "b", "c", "d"]) await first!.createInvite({ ownerId: ann.id, hash: hash(c), expiresAt: later });
      await first!.createInvite({ ownerId: ben.id, hash: hash("e"), expiresAt: later });

      const now = new Date();
      const sameLink = await Promise.all(processes.map((store) => store.consumeInvite(hash("e"), now)));
      expect(sameLink.filter((owner) => owner === ben.id)).toHaveLength(1);
      expect(sameLink.filter((owner) => owner === undefined)).toHaveLength(3);
      const ownLinks = await Promise.all(processes.map((store, i) => store.consumeInvite(hash("abcd"[i]!), now)));
      expect(ownLinks.filter((owner) => owner === ann.id)).toHaveLength(1);
      expect(ownLinks.filter((owner) => owner === undefined)).toHaveLength(3);
    });
  });

  describe("sessions", () => {
    it("finds a session by its hash, keeps it in use, and ends it or every idle one", async () => {
      const [store, other] = await open(2);
      const ann = await store!.createOwner("Ann");
      const start = new Date(Date.now() - 40 * 24 * HOUR);
      const kept = await store!.createSession({ ownerId: ann.id, hash: hash("k"), at: start });
      await store!.createSession({ ownerId: ann.id, hash: hash("i"), at: start });
      const ended = await store!.createSession({ ownerId: ann.id, hash: hash("e"), at: new Date() });
      expect(kept).toEqual({ id: expect.stringMatching(/^ses_/), ownerId: ann.id, createdAt: start.toISOString(), lastSeenAt: start.toISOString() });
      expect(await other!.findSession(hash("k"))).toEqual(kept);

      const seen = new Date();
      await other!.touchSession(kept.id, seen);
      expect(await store!.findSession(hash("k"))).toEqual({ ...kept, lastSeenAt: seen.toISOString() });
      await other!.deleteSession(ended.id);
      expect(await store!.findSession(hash("e"))).toBeUndefined();
      expect(await store!.deleteIdleSessions(new Date(Date.now() - 30 * 24 * HOUR))).toBe(1);
      expect(await store!.findSession(hash("i"))).toBeUndefined();
      expect(await store!.findSession(hash("k"))).toBeDefined();
    });
  });

  describe("sign-in attempts", () => {
    const reserve = (store: Store, keys: string[], at: Date, since: Date, limit = 3) => store.reserveSignInAttempt({ keys, at, since, limit });

    it("counts attempts per key for every process, refuses one over the limit, forgets old ones and gives matched ones back", async () => {
      const [store, other] = await open(2);
      const now = Date.now();
      const t = (minutesAgo: number) => new Date(now - minutesAgo * MINUTE);
      const old = await reserve(store!, ["email:ann@example.com", "ip:192.0.2.1"], t(20), t(35));
      const first = await reserve(other!, ["email:ann@example.com", "ip:192.0.2.2"], t(10), t(25));
      await reserve(store!, ["email:ann@example.com", "ip:192.0.2.1"], t(5), t(25));
      expect([old.reserved, first.reserved]).toEqual([true, true]);

      expect(await other!.signInFailures("email:ann@example.com", t(60))).toEqual([t(20), t(10), t(5)].map((d) => d.toISOString()));
      // The limit (3) is reached under the email: refused, nothing written, freed when the oldest counted one leaves.
      expect(await reserve(other!, ["email:ann@example.com", "ip:192.0.2.9"], t(4), t(60))).toEqual({ reserved: false, freedBy: t(20).toISOString() });
      expect(await store!.signInFailures("ip:192.0.2.9", t(60))).toEqual([]);
      // A window that starts later forgets the attempt 20 minutes ago, in the database too.
      expect((await reserve(other!, ["ip:192.0.2.3"], t(4), t(15))).reserved).toBe(true);
      expect(await store!.signInFailures("ip:192.0.2.1", t(60))).toHaveLength(1);
      expect((await reserve(store!, ["email:ann@example.com"], t(3), t(15))).reserved).toBe(true);
      expect((await reserve(store!, ["email:ann@example.com"], t(2), t(15))).reserved).toBe(false);

      if (first.reserved) await store!.releaseSignInAttempt(first.attempt);
      expect(await other!.signInFailures("ip:192.0.2.2", t(60))).toEqual([]);
      expect(await other!.signInFailures("email:ann@example.com", t(60))).toHaveLength(2);
      await other!.clearSignInFailures("email:ann@example.com");
      expect(await store!.signInFailures("email:ann@example.com", t(60))).toEqual([]);
    });

    it("lets exactly `limit` of a burst through when two processes reserve at once", async () => {
      const [store, other] = await open(2);
      const now = new Date();
      const since = new Date(now.getTime() - 15 * MINUTE);
      const burst = await Promise.all(
        Array.from({ length: 40 }, (_, i) => reserve(i % 2 ? store! : other!, ["email:ann@example.com", `ip:192.0.2.${i}`], now, since, 10)),
      );
      expect(burst.filter((r) => r.reserved)).toHaveLength(10);
      expect(await store!.signInFailures("email:ann@example.com", since)).toHaveLength(10);
    });
  });
});
