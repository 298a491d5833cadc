// The server's life over real HTTP: single flight per owner, owners in parallel, the port, graceful close,
// the --sync-every schedule and the log.
import { describe, expect, it } from "vitest";
import { startServer } from "../src/server/index.js";
import { generateToken } from "../src/server/tokens.js";
import { openStore } from "../src/store/index.js";
import type { SyncResponse } from "../src/types.js";
import { Gate, ics, ownerWith, post, until, useServerFixtures } from "./helpers/server-fixtures.js";

const { feed, newStore, serve, dbPath } = useServerFixtures();

describe("concurrency", () => {
  it("lets a second request of the same owner join the running sync: same body, one run", async () => {
    const store = await newStore();
    const gate = new Gate();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed(gate.serve(ics("a1", "a2"))) }] });
    const second = generateToken();
    const secondId = (await store.createToken({ ownerId: ann.ownerId, name: "two", prefix: second.prefix, hash: second.hash, expiresAt: null })).id;
    const server = await serve(store);

    const first = post(server, ann.token);
    expect(await gate.arrivals(1)).toBe(true);
    const joined = post(server, second.token);
    // The second token is marked used just before its request joins the run; only then let the feed answer.
    await until(async () => (await store.listTokens(ann.ownerId)).some((t) => t.id === secondId && t.lastUsedAt !== null));
    gate.open();

    const [a, b] = await Promise.all([first, joined]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const [bodyA, bodyB] = [(await a.json()) as SyncResponse, (await b.json()) as SyncResponse];
    expect(bodyB).toEqual(bodyA);
    expect(bodyA.results[0]?.result.reservationsCreated).toBe(2);
    expect(gate.arrived).toBe(1);
    expect(await store.listSyncRuns({ ownerId: ann.ownerId })).toHaveLength(1);
  });

  it("runs different owners at the same time", async () => {
    const store = await newStore();
    const gate = new Gate();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed(gate.serve(ics("a1"))) }] });
    const bob = await ownerWith(store, "Bob", { Barn: [{ source: "vrbo", url: feed(gate.serve(ics("b1"))) }] });
    const server = await serve(store);
    const answers = Promise.all([post(server, ann.token), post(server, bob.token)]);
    // Both feeds are asked for while neither has answered: the two runs overlap.
    const bothArrived = await gate.arrivals(2);
    gate.open();
    const [a, b] = await answers;
    expect(bothArrived).toBe(true);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await store.listSyncRuns({ ownerId: ann.ownerId })).toHaveLength(1);
    expect(await store.listSyncRuns({ ownerId: bob.ownerId })).toHaveLength(1);
  });
});

describe("startServer", () => {
  it("refuses a port that is in use instead of moving to another one", async () => {
    const store = await newStore();
    const first = await serve(store);
    const port = Number(new URL(first.url).port);
    await expect(startServer({ store, port, host: "127.0.0.1", log: () => {} })).rejects.toThrow(
      `cannot listen on 127.0.0.1:${port}: the port is in use`,
    );
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
  });

  it("finishes a running sync before closing, and stops taking new connections at once", async () => {
    const store = await newStore();
    const gate = new Gate();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed(gate.serve(ics("a1", "a2", "a3"))) }] });
    const server = await serve(store);
    const running = post(server, ann.token);
    expect(await gate.arrivals(1)).toBe(true);
    const closed = server.close();
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    gate.open();
    const res = await running;
    expect(res.status).toBe(200);
    await closed;
    expect(await store.listReservations({ ownerId: ann.ownerId })).toHaveLength(3);
  });

  it("gives up after the grace period and leaves the calendar unwritten, not half-written", async () => {
    const db = dbPath();
    const setup = await openStore(db);
    const gate = new Gate();
    const ann = await ownerWith(setup, "Ann", { Loft: [{ source: "airbnb", url: feed(gate.serve(ics("a1", "a2", "a3"))) }] });
    await setup.close();
    const server = await startServer({ dbPath: db, port: 0, allowPrivateNetworks: true, log: () => {} });
    const running = post(server, ann.token).then(
      (res) => res.status,
      () => "connection closed",
    );
    expect(await gate.arrivals(1)).toBe(true);
    await server.close({ graceMs: 100 });
    expect(await running).toBe("connection closed");
    gate.open();
    const reopened = await openStore(db);
    try {
      expect(await reopened.listReservations({ ownerId: ann.ownerId })).toHaveLength(0);
    } finally {
      await reopened.close();
    }
  });

  it("syncs every owner on the schedule, again and again, even when a feed fails", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed({ body: ics("a1") }) }] });
    const bob = await ownerWith(store, "Bob", { Barn: [{ source: "booking", url: feed({ status: 503 }) }] });
    const idle = await ownerWith(store, "Idle", {});
    const log: string[] = [];
    await serve(store, { syncEveryMs: 200, log, jsonLogs: true });
    const scheduled = async (ownerId: string) => (await store.listSyncRuns({ ownerId })).filter((run) => run.trigger === "schedule");
    await until(async () => (await scheduled(ann.ownerId)).length >= 2 && (await scheduled(bob.ownerId)).length >= 2);
    expect((await scheduled(bob.ownerId)).every((run) => !run.ok && run.failed === 1)).toBe(true);
    expect(await store.listSyncRuns({ ownerId: idle.ownerId })).toHaveLength(0);
    const events = log.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toContainEqual(expect.objectContaining({ msg: "scheduled sync", ownerId: bob.ownerId, ok: false, failed: 1 }));
    expect(log.join("\n")).not.toContain("s3cr3t");
  });

  it("leaves an owner whose sync outlasts the interval to that sync: one log line per run, no back-to-back runs", async () => {
    const store = await newStore();
    const gate = new Gate();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed(gate.serve(ics("a1"))) }] });
    const log: string[] = [];
    const server = await serve(store, { syncEveryMs: 50, log, jsonLogs: true });
    expect(await gate.arrivals(1)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 400)); // about eight rounds while the feed holds
    expect(gate.arrived).toBe(1);
    gate.open();
    const scheduled = async () => (await store.listSyncRuns({ ownerId: ann.ownerId })).filter((run) => run.trigger === "schedule");
    await until(async () => (await scheduled()).length >= 2);
    await server.close();
    const lines = log.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => e["msg"] === "scheduled sync");
    expect(lines).toHaveLength((await scheduled()).length);
    expect(lines[0]).toMatchObject({ ownerId: ann.ownerId, ok: true, conflicts: 0 });
  });

  it("logs the double bookings a scheduled sync finds, as a warning", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", {
          Loft: [
            { source: "airbnb", url: feed({ body: ics("a1") }) },
            { source: "booking", url: feed({ body: ics("b1") }) }, // the same nights: ics() dates by position
          ],
        });
    const log: string[] = [];
    await serve(store, { syncEveryMs: 100, log, jsonLogs: true });
    await until(() => log.some((line) => line.includes('"double booking"')));
    const events = log.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toContainEqual(expect.objectContaining({ level: "warn", msg: "scheduled sync", ownerId: ann.ownerId, ok: true, conflicts: 1 }));
    expect(events).toContainEqual(
      expect.objectContaining({ level: "warn", msg: "double booking", propertyId: ann.propertyIds["Loft"], sources: "airbnb,booking" }),
    );
  });

  it("writes one JSON access line per request with --json-logs, without the token", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", {});
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
