// The API over real HTTP on loopback (startServer, port 0) against a loopback feed server:
// 200/207 bodies, owner isolation, single flight, parallel owners, graceful close, the schedule.
import type { ServerResponse } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../src/server/index.js";
import { generateToken } from "../src/server/tokens.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import type { CalendarSource, SyncResponse } from "../src/types.js";
import { startFeedServer, type FeedServer, type RouteHandler, type RouteSpec } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";

/** A feed route that holds its answer until `open()`, counting who arrived. */
class Gate {
  arrived = 0;
  #open = false;
  #held: Array<() => void> = [];
  #arrivals: Array<{ count: number; resolve: () => void }> = [];

  /** Serves `body` once the gate is open. */
  serve(body: string): RouteHandler {
    return (_req, res: ServerResponse) => {
      this.arrived++;
      this.#arrivals = this.#arrivals.filter((a) => (this.arrived >= a.count ? (a.resolve(), false) : true));
      const answer = () => res.writeHead(200, { "content-type": "text/calendar" }).end(body);
      if (this.#open) answer();
      else this.#held.push(answer);
    };
  }

  /** Resolves true once `count` requests arrived, false if `ms` passed first. */
  arrivals(count: number, ms = 5000): Promise<boolean> {
    if (this.arrived >= count) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.#arrivals.push({ count, resolve: () => (clearTimeout(timer), resolve(true)) });
    });
  }

  open(): void {
    this.#open = true;
    for (const answer of this.#held.splice(0)) answer();
  }
}

let feeds: FeedServer;
let feedCount = 0;

/** Serves a route at a fresh path holding secrets (path and query), and returns its URL. */
function feed(spec: RouteSpec | RouteHandler): string {
  return `${feeds.url(`/feeds/${++feedCount}/s3cr3t-path.ics`, spec)}?token=s3cr3t-query`;
}

/** An iCalendar feed with one upcoming stay per UID, a week apart. */
function ics(...uids: string[]): string {
  return buildIcs(uids.map((uid, i) => ({ uid, start: day(10 + i * 7), end: day(13 + i * 7), summary: "Reserved" })));
}

// ---- database set-up through the store ----

const dir = mkdtempSync(path.join(tmpdir(), "calsync-"));
let dbCount = 0;
const stores: Store[] = [];
const servers: RunningServer[] = [];

function newStore(): Store {
  const store = openStore(path.join(dir, `http-${++dbCount}.db`));
  stores.push(store);
  return store;
}

function ownerWith(store: Store, name: string, properties: Record<string, Array<{ source: CalendarSource; url: string }>>) {
  const owner = store.createOwner(name);
  const propertyIds: Record<string, string> = {};
  for (const [propertyName, calendars] of Object.entries(properties)) {
    const property = store.createProperty(owner.id, propertyName);
    propertyIds[propertyName] = property.id;
    for (const calendar of calendars) store.createCalendar({ propertyId: property.id, ...calendar });
  }
  const generated = generateToken();
  const token = store.createToken({ ownerId: owner.id, name: "t", prefix: generated.prefix, hash: generated.hash, expiresAt: null });
  return { ownerId: owner.id, token: generated.token, tokenId: token.id, propertyIds };
}

async function serve(store: Store, options: { syncEveryMs?: number; log?: string[]; jsonLogs?: boolean } = {}) {
  const server = await startServer({
    store,
    port: 0,
    host: "127.0.0.1",
    allowPrivateNetworks: true,
    syncEveryMs: options.syncEveryMs,
    jsonLogs: options.jsonLogs,
    log: (line) => options.log?.push(line),
  });
  servers.push(server);
  return server;
}

function post(server: RunningServer, token?: string, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/api/v1/calendars/sync`, {
    method: "POST",
    headers: { ...(token ? { "x-api-key": token } : {}), ...headers },
  });
}

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  feeds = await startFeedServer();
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close({ graceMs: 2000 })));
});

afterAll(async () => {
  for (const store of stores) store.close();
  await feeds.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("POST /api/v1/calendars/sync over HTTP", () => {
  it("answers 200 with every field of the Sync response when all calendars succeed", async () => {
    const store = newStore();
    const ann = ownerWith(store, "Ann", { "Sea View Loft": [{ source: "airbnb", url: feed({ body: ics("a1", "a2") }) }] });
    const server = await serve(store);
    const res = await post(server, ann.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const body = (await res.json()) as SyncResponse;
    expect(body).toEqual({
      ok: true,
      syncedCalendars: 1,
      propertiesChecked: 1,
      failed: 0,
      durationMs: expect.any(Number),
      results: [
        {
          propertyId: ann.propertyIds["Sea View Loft"],
          propertyName: "Sea View Loft",
          source: "airbnb",
          ok: true,
          result: {
            status: "success",
            reservationsFound: 2,
            reservationsCreated: 2,
            reservationsUpdated: 0,
            reservationsCancelled: 0,
          },
        },
      ],
    });
    expect(store.listReservations({ ownerId: ann.ownerId })).toHaveLength(2);
  });

  it("answers 207 when one calendar fails, reporting the failure without the feed's secrets", async () => {
    const store = newStore();
    const ann = ownerWith(store, "Ann", {
      "Sea View Loft": [
        { source: "airbnb", url: feed({ body: ics("a1") }) },
        { source: "booking", url: feed({ status: 503, body: "maintenance" }) },
      ],
      "Alpine Cabin": [{ source: "vrbo", url: feed({ body: ics("v1", "v2", "v3") }) }],
    });
    const server = await serve(store);
    const res = await post(server, ann.token);
    expect(res.status).toBe(207);
    const text = await res.text();
    expect(text).not.toContain("s3cr3t");
    const body = JSON.parse(text) as SyncResponse;
    expect(body).toEqual({
      ok: false,
      syncedCalendars: 3,
      propertiesChecked: 2,
      failed: 1,
      durationMs: expect.any(Number),
      results: [
        {
          propertyId: ann.propertyIds["Alpine Cabin"],
          propertyName: "Alpine Cabin",
          source: "vrbo",
          ok: true,
          result: { status: "success", reservationsFound: 3, reservationsCreated: 3, reservationsUpdated: 0, reservationsCancelled: 0 },
        },
        {
          propertyId: ann.propertyIds["Sea View Loft"],
          propertyName: "Sea View Loft",
          source: "airbnb",
          ok: true,
          result: { status: "success", reservationsFound: 1, reservationsCreated: 1, reservationsUpdated: 0, reservationsCancelled: 0 },
        },
        {
          propertyId: ann.propertyIds["Sea View Loft"],
          propertyName: "Sea View Loft",
          source: "booking",
          ok: false,
          result: {
            status: "failed",
            reservationsFound: 0,
            reservationsCreated: 0,
            reservationsUpdated: 0,
            reservationsCancelled: 0,
            error: { code: "http_error", message: expect.any(String), httpStatus: 503 },
          },
        },
      ],
    });
  });

  it("shows an owner's token only that owner's properties", async () => {
    const store = newStore();
    const ann = ownerWith(store, "Ann", { "Ann's Loft": [{ source: "airbnb", url: feed({ body: ics("ann1") }) }] });
    const bob = ownerWith(store, "Bob", { "Bob's Barn": [{ source: "booking", url: feed({ body: ics("bob1", "bob2") }) }] });
    const server = await serve(store);
    const body = (await (await post(server, bob.token)).json()) as SyncResponse;
    expect(body.propertiesChecked).toBe(1);
    expect(body.results.map((r) => [r.propertyId, r.propertyName])).toEqual([[bob.propertyIds["Bob's Barn"], "Bob's Barn"]]);
    expect(JSON.stringify(body)).not.toContain(ann.propertyIds["Ann's Loft"]);
    expect(store.listReservations({ ownerId: ann.ownerId })).toHaveLength(0);
    expect(store.listSyncRuns({ ownerId: ann.ownerId })).toHaveLength(0);
  });

  it("answers every error row of the status table as JSON with a request id", async () => {
    const store = newStore();
    const ann = ownerWith(store, "Ann", {});
    const expired = generateToken();
    store.createToken({ ownerId: ann.ownerId, name: "old", prefix: expired.prefix, hash: expired.hash, expiresAt: new Date(Date.now() - 1) });
    const revoked = ownerWith(store, "Rev", {});
    store.revokeToken(revoked.tokenId);
    const server = await serve(store);
    const cases: Array<[Promise<Response>, number, string]> = [
      [post(server), 401, "missing_token"],
      [post(server, "garbage"), 401, "invalid_token"],
      [post(server, generateToken().token), 401, "invalid_token"],
      [post(server, expired.token), 401, "expired_token"],
      [post(server, revoked.token), 401, "revoked_token"],
      [fetch(`${server.url}/nope`), 404, "not_found"],
      [fetch(`${server.url}/api/v1/calendars/sync`), 405, "method_not_allowed"],
    ];
    for (const [pending, status, code] of cases) {
      const res = await pending;
      expect([res.status, await res.json()]).toEqual([status, { ok: false, error: { code, message: expect.any(String) } }]);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("x-request-id")).toBeTruthy();
      expect(res.statusText).not.toBe("");
      if (status === 401) expect(res.headers.get("www-authenticate")).toBe("ApiKey");
      if (status === 405) expect(res.headers.get("allow")).toBe("POST");
    }
    const ok = await post(server, ann.token, { "x-request-id": "my-trace-1" });
    expect([ok.status, ok.headers.get("x-request-id")]).toEqual([200, "my-trace-1"]);
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ ok: true });
  });

  it("answers 500 with a generic body when the database fails under the server", async () => {
    const store = openStore(path.join(dir, "closed-under-server.db"));
    const ann = ownerWith(store, "Ann", {});
    const log: string[] = [];
    const server = await serve(store, { log });
    store.close();
    const res = await post(server, ann.token);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text).error.code).toBe("internal_error");
    for (const leak of [store.path, ann.token, "database", "    at "]) expect(text).not.toContain(leak);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(500);
    // The operator's log says what happened, under the request id.
    expect(log.some((line) => line.includes("request failed") && line.includes(res.headers.get("x-request-id")!))).toBe(true);
  });
});

describe("concurrency", () => {
  it("lets a second request of the same owner join the running sync: same body, one run", async () => {
    const store = newStore();
    const gate = new Gate();
    const ann = ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed(gate.serve(ics("a1", "a2"))) }] });
    const second = generateToken();
    const secondId = store.createToken({ ownerId: ann.ownerId, name: "two", prefix: second.prefix, hash: second.hash, expiresAt: null }).id;
    const server = await serve(store);

    const first = post(server, ann.token);
    expect(await gate.arrivals(1)).toBe(true);
    const joined = post(server, second.token);
    // The second token is marked used just before its request joins the run; only then let the feed answer.
    await until(() => store.listTokens(ann.ownerId).some((t) => t.id === secondId && t.lastUsedAt !== null));
    gate.open();

    const [a, b] = await Promise.all([first, joined]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const [bodyA, bodyB] = [(await a.json()) as SyncResponse, (await b.json()) as SyncResponse];
    expect(bodyB).toEqual(bodyA);
    expect(bodyA.results[0]?.result.reservationsCreated).toBe(2);
    expect(gate.arrived).toBe(1);
    expect(store.listSyncRuns({ ownerId: ann.ownerId })).toHaveLength(1);
  });

  it("runs different owners at the same time", async () => {
    const store = newStore();
    const gate = new Gate();
    const ann = ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed(gate.serve(ics("a1"))) }] });
    const bob = ownerWith(store, "Bob", { Barn: [{ source: "vrbo", url: feed(gate.serve(ics("b1"))) }] });
    const server = await serve(store);
    const answers = Promise.all([post(server, ann.token), post(server, bob.token)]);
    // Both feeds are asked for while neither has answered: the two runs overlap.
    const bothArrived = await gate.arrivals(2);
    gate.open();
    const [a, b] = await answers;
    expect(bothArrived).toBe(true);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(store.listSyncRuns({ ownerId: ann.ownerId })).toHaveLength(1);
    expect(store.listSyncRuns({ ownerId: bob.ownerId })).toHaveLength(1);
  });
});

describe("startServer", () => {
  it("refuses a port that is in use instead of moving to another one", async () => {
    const store = newStore();
    const first = await serve(store);
    const port = Number(new URL(first.url).port);
    await expect(startServer({ store, port, host: "127.0.0.1", log: () => {} })).rejects.toThrow(
      `cannot listen on 127.0.0.1:${port}: the port is in use`,
    );
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
  });

  it("finishes a running sync before closing, and stops taking new connections at once", async () => {
    const store = newStore();
    const gate = new Gate();
    const ann = ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed(gate.serve(ics("a1", "a2", "a3"))) }] });
    const server = await serve(store);
    const running = post(server, ann.token);
    expect(await gate.arrivals(1)).toBe(true);
    const closed = server.close();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    gate.open();
    const res = await running;
    expect(res.status).toBe(200);
    await closed;
    expect(store.listReservations({ ownerId: ann.ownerId })).toHaveLength(3);
  });

  it("gives up after the grace period and leaves the calendar unwritten, not half-written", async () => {
    const dbPath = path.join(dir, "grace.db");
    const setup = openStore(dbPath);
    const gate = new Gate();
    const ann = ownerWith(setup, "Ann", { Loft: [{ source: "airbnb", url: feed(gate.serve(ics("a1", "a2", "a3"))) }] });
    setup.close();
    const server = await startServer({ dbPath, port: 0, allowPrivateNetworks: true, log: () => {} });
    const running = post(server, ann.token).then(
      (res) => res.status,
      () => "connection closed",
    );
    expect(await gate.arrivals(1)).toBe(true);
    await server.close({ graceMs: 100 });
    expect(await running).toBe("connection closed");
    gate.open();
    const reopened = openStore(dbPath);
    try {
      expect(reopened.listReservations({ ownerId: ann.ownerId })).toHaveLength(0);
    } finally {
      reopened.close();
    }
  });

  it("syncs every owner on the schedule, again and again, even when a feed fails", async () => {
    const store = newStore();
    const ann = ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed({ body: ics("a1") }) }] });
    const bob = ownerWith(store, "Bob", { Barn: [{ source: "booking", url: feed({ status: 503 }) }] });
    const idle = ownerWith(store, "Idle", {});
    const log: string[] = [];
    await serve(store, { syncEveryMs: 200, log, jsonLogs: true });
    const scheduled = (ownerId: string) => store.listSyncRuns({ ownerId }).filter((run) => run.trigger === "schedule");
    await until(() => scheduled(ann.ownerId).length >= 2 && scheduled(bob.ownerId).length >= 2);
    expect(scheduled(bob.ownerId).every((run) => !run.ok && run.failed === 1)).toBe(true);
    expect(store.listSyncRuns({ ownerId: idle.ownerId })).toHaveLength(0);
    const events = log.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toContainEqual(expect.objectContaining({ msg: "scheduled sync", ownerId: bob.ownerId, ok: false, failed: 1 }));
    expect(log.join("\n")).not.toContain("s3cr3t");
  });

  it("writes one JSON access line per request with --json-logs, without the token", async () => {
    const store = newStore();
    const ann = ownerWith(store, "Ann", {});
    const log: string[] = [];
    const server = await serve(store, { log, jsonLogs: true });
    await post(server, ann.token, { "x-request-id": "json-log-1" });
    await until(() => log.some((line) => line.includes("json-log-1")));
    const line = JSON.parse(log.find((l) => l.includes("json-log-1"))!);
    expect(line).toEqual({
      time: expect.any(String),
      level: "info",
      msg: "request",
      method: "POST",
      path: "/api/v1/calendars/sync",
      status: 200,
      ms: expect.any(Number),
      requestId: "json-log-1",
      ownerId: ann.ownerId,
    });
    expect(log.join("\n")).not.toContain(ann.token);
  });
});
