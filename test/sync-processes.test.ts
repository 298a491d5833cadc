// Several processes syncing one owner on one SQLite file (CONTRACT §2 "Concurrency"): two cron jobs, or
// cron's `sync --local` while `calsync serve` syncs. The second run waits for the first, then reports
// that run (the API) or runs after it (the CLI, 0 changes); never a UNIQUE failure, exit 1 or a 500.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import type { SyncResponse } from "../src/types.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { postSync, startCalsync, startServe, type ServeProcess } from "./helpers/processes.js";
import { Gate, ics, ownerWith, until } from "./helpers/server-fixtures.js";

const { tmp, feeds } = useCliFixtures({ built: true });
let count = 0;
const servers: ServeProcess[] = [];
const stores: Store[] = [];

async function database(): Promise<{ path: string; store: Store }> {
  const path = tmp.db();
  const store = await openStore(path);
  stores.push(store);
  return { path, store };
}
const gatedFeed = (gate: Gate, ...uids: string[]) => feeds.url(`/processes/${++count}.ics`, gate.serve(ics(...uids)));
const created = (response: SyncResponse) => response.results.reduce((sum, entry) => sum + entry.result.reservationsCreated, 0);
const WAITING = "waiting for it";

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});
afterAll(async () => {
  for (const store of stores) await store.close();
});

describe("several processes syncing one owner on one SQLite file", () => {
  it("runs three sync --local of one owner one after the other: all exit 0, the first creates, the others change nothing", async () => {
    const { path, store } = await database();
    const gate = new Gate();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: gatedFeed(gate, "a1", "a2") }] });
    const runs = Array.from({ length: 3 }, () => startCalsync(["sync", "--local", "--db", path, "--json"]));
    expect(await gate.arrivals(1)).toBe(true);
    await until(() => runs.filter((run) => run.stderr().includes(WAITING)).length === 2);
    gate.open();

    expect(await Promise.all(runs.map((run) => run.exited))).toEqual([0, 0, 0]);
    const responses = runs.map((run) => JSON.parse(run.stdout()) as SyncResponse);
    expect(responses.map(created).sort()).toEqual([0, 0, 2]);
    expect(responses.every((response) => response.ok && response.results[0]?.result.reservationsFound === 2)).toBe(true);
    expect(gate.arrived).toBe(3);
    expect(await store.listSyncRuns({ ownerId: ann.ownerId })).toHaveLength(3);
    expect(await store.listReservations({ ownerId: ann.ownerId })).toHaveLength(2);
  });

  it("answers an API request that arrives during a sync --local with that run's result, and runs a sync --local after an API sync", async () => {
    const { path, store } = await database();
    const cronFirst = new Gate();
    const apiFirst = new Gate();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: gatedFeed(cronFirst, "a1", "a2") }] });
    const bob = await ownerWith(store, "Bob", { Barn: [{ source: "vrbo", url: gatedFeed(apiFirst, "b1") }] });
    const server = await startServe(["--db", path]);
    servers.push(server);

    // Cron's sync --local holds Ann's lease; the API request waits for it and answers its result.
    const cron = startCalsync(["sync", "--local", "--db", path, "--owner", "Ann", "--json"]);
    expect(await cronFirst.arrivals(1)).toBe(true);
    const api = postSync(server.url, ann.token);
    await until(() => server.stderr().includes("waiting for a sync running elsewhere"));
    cronFirst.open();
    const [code, res] = await Promise.all([cron.exited, api]);
    expect([code, res.status]).toEqual([0, 200]);
    expect(await res.json()).toEqual(JSON.parse(cron.stdout()));
    expect(cronFirst.arrived).toBe(1);

    // The server holds Bob's lease; cron's sync --local waits, then runs and finds nothing new.
    const answer = postSync(server.url, bob.token);
    expect(await apiFirst.arrivals(1)).toBe(true);
    const late = startCalsync(["sync", "--local", "--db", path, "--owner", "Bob", "--json"]);
    await until(() => late.stderr().includes(WAITING));
    apiFirst.open();
    const bobRes = await answer;
    expect(bobRes.status).toBe(200);
    expect(created((await bobRes.json()) as SyncResponse)).toBe(1);
    expect(await late.exited).toBe(0);
    expect(created(JSON.parse(late.stdout()) as SyncResponse)).toBe(0);
    expect(await store.listSyncRuns({ ownerId: bob.ownerId })).toHaveLength(2);
  });
});
