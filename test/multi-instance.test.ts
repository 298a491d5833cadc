// Two real `calsync serve` processes on one PostgreSQL database (CONTRACT §10): single flight across
// instances, --sync-every once per period in total, a SIGKILLed instance blocking no one, one rate limit
// per token across both, migrations once, each webhook delivery sent by one instance (§11), and the channel
// check claimed by one instance per period (§17).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateToken } from "../src/server/tokens.js";
import { generateWebhookSecret } from "../src/server/webhooks/endpoint-rules.js";
import { openStore } from "../src/store/index.js";
import { MIGRATIONS_TABLE, SCHEMA_VERSION } from "../src/store/postgres/migrations.js";
import type { Store } from "../src/store/types.js";
import { isBuilt } from "./helpers/cli.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { postSync, startServe, type ServeProcess } from "./helpers/processes.js";
import { day } from "./helpers/ics.js";
import { Gate, ics, ownerWith, until } from "./helpers/server-fixtures.js";
import { postgresKind } from "./helpers/stores.js";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver.js";

const kind = postgresKind();
let feeds: FeedServer;
let receiver: WebhookReceiver;
let count = 0;
const instances: ServeProcess[] = [];
const stores: Store[] = [];

/** A fresh database with the schema, and a store on it for the test's own reads and writes. */
async function database(): Promise<{ url: string; store: Store }> {
  const url = await kind.create();
  const store = await openStore(url);
  stores.push(store);
  return { url, store };
}
/** `n` instances of `calsync serve --db url ...args`, started at the same moment. */
async function serveTwice(url: string, ...args: string[]): Promise<ServeProcess[]> {
  const started = await Promise.all([startServe(["--db", url, ...args]), startServe(["--db", url, ...args])]);
  instances.push(...started);
  return started;
}
/** A feed that counts its fetches. */
function countedFeed(body: string): { url: string; fetches: () => number } {
  let fetches = 0;
  const url = feeds.url(`/multi/${++count}.ics`, (_req, res) => {
    fetches++;
    res.writeHead(200, { "content-type": "text/calendar" }).end(body);
  });
  return { url, fetches: () => fetches };
}

beforeAll(async () => {
  if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
  feeds = await startFeedServer();
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await Promise.all(instances.splice(0).map((instance) => instance.stop()));
});
afterAll(async () => {
  for (const store of stores) await store.close();
  await receiver.close();
  await feeds.close();
  await kind.dispose();
});

describe("two calsync serve instances on one PostgreSQL database", () => {
  it("run concurrent requests of one owner, half to each instance, once: each feed fetched once, one answer for all", async () => {
    const { url, store } = await database();
    const airbnb = new Gate();
    const vrbo = new Gate();
    const ann = await ownerWith(store, "Ann", {
      Loft: [
        { source: "airbnb", url: feeds.url(`/multi/${++count}.ics`, airbnb.serve(ics("a1", "a2"))) },
        { source: "vrbo", url: feeds.url(`/multi/${++count}.ics`, vrbo.serve(ics("v1"))) },
      ],
    });
    const tokens = [ann.token];
    for (let i = 1; i < 6; i++) {
      const { token, prefix, hash } = generateToken();
      await store.createToken({ ownerId: ann.ownerId, name: `t${i}`, prefix, hash, expiresAt: null });
      tokens.push(token);
    }
    const [a, b] = await serveTwice(url);

    const answers = tokens.map((token, i) => postSync((i % 2 === 0 ? a! : b!).url, token));
    expect(await airbnb.arrivals(1)).toBe(true);
    // Every request is in (its token marked used) and the instance not running the sync is waiting for it.
    await until(async () => (await store.listTokens(ann.ownerId)).every((t) => t.lastUsedAt !== null));
    await until(() => (a!.stderr() + b!.stderr()).includes("waiting for a sync running elsewhere"));
    airbnb.open();
    vrbo.open();

    const responses = await Promise.all(answers);
    expect(responses.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const bodies = await Promise.all(responses.map((res) => res.text()));
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!)).toMatchObject({ ok: true, syncedCalendars: 2, results: [
      { source: "airbnb", result: { reservationsCreated: 2 } },
      { source: "vrbo", result: { reservationsCreated: 1 } },
    ] });
    expect([airbnb.arrived, vrbo.arrived]).toEqual([1, 1]);
    expect(await store.listSyncRuns({ ownerId: ann.ownerId })).toHaveLength(1);
  });

  it("refresh a property once for direct stays sent to both at once: its feeds fetched once, the other property's never", async () => {
    const { url, store } = await database();
    const loftAirbnb = countedFeed(ics("a1"));
    const loftVrbo = countedFeed(ics("v1"));
    const barn = countedFeed(ics("b1"));
    const ann = await ownerWith(store, "Ann", {
      Loft: [
        { source: "airbnb", url: loftAirbnb.url },
        { source: "vrbo", url: loftVrbo.url },
      ],
      Barn: [{ source: "airbnb", url: barn.url }],
    });
    const [a, b] = await serveTwice(url, "--api-rate-limit", "0");
    const stay = (base: string, arrival: number) =>
      fetch(`${base}/api/v1/properties/${ann.propertyIds.Loft}/reservations`, {
        method: "POST",
        headers: { "x-api-key": ann.token, "content-type": "application/json" },
        body: JSON.stringify({ kind: "block", arrival: day(40 + arrival * 2), departure: day(41 + arrival * 2) }),
      });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => stay((i % 2 === 0 ? a! : b!).url, i)));
    expect(answers.map((res) => res.status)).toEqual(Array.from({ length: 10 }, () => 201));
    for (const res of answers) expect(await res.json()).not.toHaveProperty("warnings");
    expect([loftAirbnb.fetches(), loftVrbo.fetches(), barn.fetches()]).toEqual([1, 1, 0]);
    // A refresh is no sync anyone asked for: nothing in the history.
    expect(await store.listSyncRuns({ ownerId: ann.ownerId })).toHaveLength(0);
  });

  it("sync each owner once per --sync-every period in total, not once per instance", async () => {
    const { url, store } = await database();
    const periodMs = 1000;
    const feedsOf = [countedFeed(ics("a1")), countedFeed(ics("b1")), countedFeed(ics("b2"))];
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feedsOf[0]!.url }] });
    const bob = await ownerWith(store, "Bob", { Barn: [{ source: "vrbo", url: feedsOf[1]!.url }, { source: "booking", url: feedsOf[2]!.url }] });
    await serveTwice(url, "--sync-every", "1s");

    const scheduled = async (ownerId: string) =>
      (await store.listSyncRuns({ ownerId })).filter((run) => run.trigger === "schedule").map((run) => Date.parse(run.startedAt)).sort();
    await until(async () => (await scheduled(ann.ownerId)).length >= 3 && (await scheduled(bob.ownerId)).length >= 3, 15_000);
    await Promise.all(instances.splice(0).map((instance) => instance.stop()));

    for (const owner of [ann, bob]) {
      const starts = await scheduled(owner.ownerId);
      // Two schedules each on their own would interleave runs at any distance; shared, a period apart.
      const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
      expect(Math.min(...gaps), `${owner.ownerId}: ${gaps.join(", ")} ms`).toBeGreaterThan(periodMs / 2);
    }
    // Every run fetched each feed of its owner once.
    expect(feedsOf[0]!.fetches()).toBe((await scheduled(ann.ownerId)).length);
    expect([feedsOf[1]!.fetches(), feedsOf[2]!.fetches()]).toEqual(Array(2).fill((await scheduled(bob.ownerId)).length));
  });

  it("keep an owner's schedule going when the instance syncing it is killed mid-run", async () => {
    const { url, store } = await database();
    const gate = new Gate();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feeds.url(`/multi/${++count}.ics`, gate.serve(ics("a1"))) }] });
    const pair = await serveTwice(url, "--sync-every", "1s");
    expect(await gate.arrivals(1, 10_000)).toBe(true);
    const lease = await store.syncLease(ann.ownerId);
    // A holder is host:pid:random.
    const holder = pair.find((instance) => lease?.holder.split(":").at(-2) === String(instance.child.pid));
    expect(holder).toBeDefined();
    holder!.child.kill("SIGKILL");
    await holder!.exited;
    gate.open();

    // The other instance syncs the owner once the dead one's lease has lapsed (a lease is at most one period).
    await until(async () => (await store.listSyncRuns({ ownerId: ann.ownerId })).some((run) => run.trigger === "schedule"), 10_000);
    expect(gate.arrived).toBeGreaterThanOrEqual(2);
    expect(await store.listReservations({ ownerId: ann.ownerId })).toHaveLength(1);
  });

  it("share one token's rate limit: 7 sync requests split across both get one 429", async () => {
    const { url, store } = await database();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: countedFeed(ics("a1")).url }] });
    const [a, b] = await serveTwice(url);
    const answers: Response[] = [];
    for (let i = 0; i < 7; i++) answers.push(await postSync((i % 2 === 0 ? a! : b!).url, ann.token));

    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect(answers.map((res) => res.headers.get("ratelimit-remaining"))).toEqual(["5", "4", "3", "2", "1", "0", "0"]);
    expect(Number(answers[6]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await answers[6]!.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    // The counts are bookkeeping beside the schema: db copy neither needs nor refuses their table.
    expect(await store.tableNames()).not.toContain("calsync_rate_limits");
  });

  it("deliver each webhook event once, with its webhook-id, while both send at the same time", async () => {
    const { url, store } = await database();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feeds.url(`/multi/${++count}.ics`, { body: ics("a1", "a2") }) }] });
    const endpoints = [];
    for (let i = 0; i < 12; i++) {
      endpoints.push(await store.createWebhookEndpoint({ ownerId: ann.ownerId, url: `${receiver.url}/${i}`, events: ["*"], secret: generateWebhookSecret() }));
    }
    const before = receiver.received.length;
    receiver.hold();
    const [a, b] = await serveTwice(url);
    // Instance a runs the sync: 2 reservation.created and sync.completed, to each of the 12 endpoints.
    expect((await postSync(a!.url, ann.token)).status).toBe(200);
    // A worker sends at most 8 at once: 12 attempts in flight together are both instances sending.
    await until(() => receiver.held === 12);
    receiver.release();
    await until(async () => (await store.countPendingWebhookDeliveries()) === 0);
    // Stopped, so that any attempt still in flight has arrived before counting.
    await Promise.all(instances.splice(0).map((instance) => instance.stop()));

    const got = receiver.received.slice(before);
    const stored = await store.listWebhookDeliveries();
    expect(stored).toHaveLength(36);
    expect(stored.every((d) => d.status === "delivered" && d.attempts === 1)).toBe(true);
    // Each (endpoint, event) once, under the event's own id.
    const endpointOf = new Map(endpoints.map((endpoint) => [new URL(endpoint.url).pathname, endpoint.id]));
    expect(got.map((r) => `${endpointOf.get(r.path)} ${r.headers["webhook-id"]}`).sort()).toEqual(
      stored.map((d) => `${d.endpointId} ${d.eventId}`).sort(),
    );
    for (const instance of [a!, b!]) expect(instance.stderr()).toMatch(/webhook delivered eventId=msg_\w+/);
  });

  it("check channels once per period between them, and tell a stale link once", async () => {
    const { url, store } = await database();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "booking", url: countedFeed(ics("a1")).url }] });
    await store.createWebhookEndpoint({ ownerId: ann.ownerId, url: `${receiver.url}/channels`, events: ["channel.stale"], secret: generateWebhookSecret() });
    const before = receiver.received.length;
    // Never read, 1 s after its calendar was added: stale at the first check after that.
    await serveTwice(url, "--channel-stale-after", "1s");
    const stale = () => receiver.received.slice(before).filter((r) => r.path.endsWith("/channels") && r.event.type === "channel.stale");
    await until(() => stale().length > 0, 10_000);
    // Several periods (250 ms each) later, still once.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await Promise.all(instances.splice(0).map((instance) => instance.stop()));
    expect(stale()).toHaveLength(1);
    // serve claims each check and tells the next time when done: due within a period, not a claim's 10 min hold.
    const [task] = await kind.query(url, "SELECT next_at FROM periodic_tasks WHERE name = 'channel-check'");
    expect((task!.next_at as Date).getTime() - Date.now()).toBeLessThan(60_000);
  });

  it("run each migration step once when both start on a new database at the same moment", async () => {
    const url = await kind.create();
    const [a, b] = await serveTwice(url);
    for (const instance of [a!, b!]) expect((await fetch(`${instance.url}/healthz`)).status).toBe(200);
    const steps = await kind.query(url, `SELECT version FROM ${MIGRATIONS_TABLE} ORDER BY version`);
    expect(steps.map((row) => row.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });
});
