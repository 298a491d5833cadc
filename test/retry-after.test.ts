// Retry-After on a feed's 429 or 503 (CONTRACT §4): the failed entry carries `retryAfter`, and calsync sends
// that host nothing until then — in this run, the next, another process's and another instance's —
// failing its calendars with `throttled`, which leaves their failure streak as it was. SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHostBackoffs, parseRetryAfter } from "../src/engine/host-backoff.js";
import { syncOwner } from "../src/engine/sync.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";

let busy: FeedServer;
let other: FeedServer;
beforeAll(async () => {
  // Two loopback hosts: the throttled one, and one that must go on being asked.
  busy = await startFeedServer();
  other = await startFeedServer({ host: "127.0.0.2" });
});
afterAll(async () => {
  await busy.close();
  await other.close();
});

const good = { body: buildIcs([{ uid: "a", start: day(10), end: day(12), summary: "Reserved" }]) };
let count = 0;
/** Requests `server` received for paths starting with `prefix`. */
const asked = (server: FeedServer, prefix: string) => server.requests.filter((r) => r.path.startsWith(prefix)).length;

describe("parseRetryAfter", () => {
  const now = new Date("2030-05-01T12:00:00.000Z");
  it("reads seconds and HTTP dates, and honours at most an hour", () => {
    expect(parseRetryAfter("120", now)).toBe(120);
    expect(parseRetryAfter("Wed, 01 May 2030 12:01:30 GMT", now)).toBe(90);
    expect(parseRetryAfter("86400", now)).toBe(3600);
    expect(parseRetryAfter("Thu, 01 May 2031 12:00:00 GMT", now)).toBe(3600);
    expect(parseRetryAfter("Wed, 01 May 2030 11:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe.each(storeKinds())("$name store", (kind: StoreKind) => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const store of stores.splice(0)) await store.close();
    await kind.dispose();
  });

  /** One owner with two calendars on the busy host (one answering `spec`) and one on the other host. */
  async function owner(spec: Parameters<FeedServer["url"]>[1]) {
    const db = await kind.create();
    const store = await openStore(db);
    stores.push(store);
    const ownerId = (await store.createOwner("Ann")).id;
    const property = await store.createProperty(ownerId, "Loft");
    const prefix = `/ra/${++count}/`;
    const limited = await store.createCalendar({ propertyId: property.id, source: "airbnb", url: busy.url(`${prefix}limited.ics`, spec) });
    const sibling = await store.createCalendar({ propertyId: property.id, source: "booking", url: busy.url(`${prefix}sibling.ics`, good) });
    await store.createCalendar({ propertyId: property.id, source: "vrbo", url: other.url(`${prefix}elsewhere.ics`, good) });
    const clock = { now: new Date() };
    // One feed of the host at a time, so the limited feed answers before its sibling is asked.
    const sync = (on: Store = store, backoffs = createHostBackoffs()) =>
      syncOwner({ store: on, ownerId, allowPrivateNetworks: true, now: () => clock.now, backoffs, fetchLimits: { ownerPerHost: 1 } });
    return { db, store, ownerId, limited, sibling, prefix, clock, sync };
  }

  it("fails a 429 with its Retry-After in seconds, then asks that host nothing until the wait is over", async () => {
    const { store, limited, sibling, prefix, clock, sync } = await owner({ status: 429, headers: { "retry-after": "120" } });
    const first = await sync();
    expect(first.results.map((r) => r.result.error?.code)).toEqual(["http_error", "throttled", undefined]);
    expect(first.results[0]!.result.error).toMatchObject({ httpStatus: 429, retryAfter: 120 });
    expect(first.results[1]!.result.error?.retryAfter).toBeGreaterThan(115);
    expect(first.results[1]!.result.error?.retryAfter).toBeLessThanOrEqual(120);
    expect(asked(busy, prefix)).toBe(1);
    expect((await store.getCalendar(limited.id))!.consecutiveFailures).toBe(1);
    expect((await store.getCalendar(sibling.id))!.consecutiveFailures).toBe(0);

    // A minute later, in a new run of a new process (nothing in memory): still throttled, still no request.
    clock.now = new Date(clock.now.getTime() + 60_000);
    const again = await sync();
    expect(again.results.map((r) => r.result.error?.code)).toEqual(["throttled", "throttled", undefined]);
    expect(again.results[0]!.result.error?.retryAfter).toBeLessThanOrEqual(60);
    expect(again.ok).toBe(false);
    expect(asked(busy, prefix)).toBe(1);
    expect(asked(other, prefix)).toBe(2);
    // Throttled neither fails nor recovers a calendar.
    const streak = await store.getCalendar(limited.id);
    expect({ n: streak!.consecutiveFailures, since: streak!.failingSince }).toEqual({ n: 1, since: expect.any(String) });
    expect((await store.getCalendar(sibling.id))!.consecutiveFailures).toBe(0);

    // Once the wait is over, the host is asked again; the limited feed now answers.
    busy.setRoute(`${prefix}limited.ics`, good);
    clock.now = new Date(clock.now.getTime() + 61_000);
    const after = await sync();
    expect(after.ok).toBe(true);
    expect(asked(busy, prefix)).toBe(3);
    expect((await store.getCalendar(limited.id))!.consecutiveFailures).toBe(0);
  });

  it("reads an HTTP date on a 503, caps a longer wait at an hour, and shares the wait with another connection", async () => {
    const inAMinute = new Date(Date.now() + 90_000).toUTCString();
    const { db, prefix, sync } = await owner({ status: 503, headers: { "retry-after": inAMinute } });
    const first = await sync();
    const wait = first.results[0]!.result.error!;
    expect(wait).toMatchObject({ code: "http_error", httpStatus: 503 });
    expect(wait.retryAfter).toBeGreaterThan(80);
    expect(wait.retryAfter).toBeLessThanOrEqual(90);
    // Another process (SQLite) or instance (PostgreSQL) on the same database: a store of its own, no shared memory.
    const elsewhere = await openStore(db);
    stores.push(elsewhere);
    const there = await sync(elsewhere);
    expect(there.results.map((r) => r.result.error?.code)).toEqual(["throttled", "throttled", undefined]);
    expect(asked(busy, prefix)).toBe(1);

    const capped = await owner({ status: 429, headers: { "retry-after": "999999" } });
    expect((await capped.sync()).results[0]!.result.error?.retryAfter).toBe(3600);
  });

  it("ignores Retry-After on other statuses", async () => {
    const { prefix, sync } = await owner({ status: 500, headers: { "retry-after": "120" } });
    const first = await sync();
    expect(first.results[0]!.result.error).toEqual({ code: "http_error", message: "feed answered HTTP 500", httpStatus: 500 });
    expect(first.results[1]!.ok).toBe(true);
    await sync();
    expect(asked(busy, prefix)).toBe(4);
  });
});
