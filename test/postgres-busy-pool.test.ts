// A busy pool is not an unreachable database (issue 40): every connection of an instance's pool held by a
// calendar's write that waits on a lock, and the owner's other calendars waiting for one of them longer than
// the 5 s a connection may take to open. node-postgres' pool timed that wait with the connect limit, so the
// sync answered 503 "the database cannot be reached" while the database answered every probe.
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../src/store/index.js";
import type { SyncResponse } from "../src/types.js";
import { buildIcs, day } from "./helpers/ics.js";
import { postgresServerUrl, queryPostgres } from "./helpers/postgres.js";
import { ownerWith, post, until, useServerFixtures } from "./helpers/server-fixtures.js";
import { postgresKind } from "./helpers/stores.js";
import { startTcpProxy } from "./helpers/tcp-proxy.js";

const kind = postgresKind();
const { feed, serve } = useServerFixtures(kind);
const stores: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

/** The pool's size (src/store/postgres/pool.ts) and the limit on opening one of its connections. */
const POOL_SIZE = 10;
const CONNECT_LIMIT_MS = 5_000;
const CALENDARS = POOL_SIZE + 4;

describe("a PostgreSQL store whose pooled connections are all busy", () => {
  it("lets a sync's calendars wait for a free connection past the connect limit: 200, every calendar written", async () => {
    const url = await kind.create();
    const { server, token } = await ownerOfCalendars(url);
    const blocker = await holdEveryProperty(url);
    try {
      const answer = post(server, token);
      await until(async () => (await waitingWrites()) >= POOL_SIZE, 20_000);
      // The other calendars now wait for a pooled connection; longer than a connection may take to open.
      await sleep(CONNECT_LIMIT_MS + 1_000);
      await blocker.query("COMMIT");

      const res = await answer;
      const body = (await res.json()) as SyncResponse;
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body.results.map((entry) => [entry.result.status, entry.result.reservationsCreated])).toEqual(
        Array.from({ length: CALENDARS }, () => ["success", 1]),
      );
      const [{ n }] = (await kind.query(url, "SELECT COUNT(*)::int AS n FROM reservations")) as [{ n: number }];
      expect(n).toBe(CALENDARS);
    } finally {
      await release(blocker);
    }
  }, 30_000);

  it("still answers 503 when, with every connection busy, the database takes no new one", async () => {
    const direct = new URL(await kind.create());
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    const url = new URL(direct);
    url.port = String(proxy.port);
    const log: string[] = [];
    const { server, token } = await ownerOfCalendars(url.toString(), log);
    const blocker = await holdEveryProperty(direct.toString());
    try {
      const answer = post(server, token);
      await until(async () => (await waitingWrites()) >= POOL_SIZE, 20_000);
      proxy.refuseNew();
      await sleep(CONNECT_LIMIT_MS + 1_000);
      await blocker.query("COMMIT");

      const res = await answer;
      expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([503, "unavailable"]);
      expect(log.join("\n")).toContain(`cannot reach PostgreSQL at 127.0.0.1:${proxy.port}: connection refused`);
    } finally {
      await release(blocker);
      await proxy.close();
    }
  }, 30_000);
});

/** An owner with CALENDARS properties of one calendar each (one event per feed), and a server on `url`. */
async function ownerOfCalendars(url: string, log?: string[]) {
  const store = await openStore(url);
  stores.push(store);
  const properties = Object.fromEntries(
    Array.from({ length: CALENDARS }, (_, i) => [
      `Flat ${String(i).padStart(2, "0")}`,
      [{ source: "airbnb" as const, url: feed({ body: buildIcs([{ uid: `b-${i}`, start: day(3), end: day(5), summary: "Guest" }]) }) }],
    ]),
  );
  const { token } = await ownerWith(store, "Ann", properties);
  return { server: await serve(store, { rateLimit: null, log }), token };
}

// Another session holds every property (as `property update --timezone` does while it recomputes nights):
// each calendar's write locks its property first, so ten writes wait on it holding the whole pool.
async function holdEveryProperty(url: string): Promise<pg.Client> {
  const blocker = new pg.Client({ connectionString: url });
  await blocker.connect();
  await blocker.query("BEGIN");
  await blocker.query("SELECT id FROM properties FOR UPDATE");
  return blocker;
}

async function release(blocker: pg.Client): Promise<void> {
  await blocker.query("ROLLBACK").catch(() => {});
  await blocker.end();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** calsync's sessions waiting on a lock (the test run's PostgreSQL serves only this file's databases here). */
async function waitingWrites(): Promise<number> {
  const [row] = await queryPostgres(
    postgresServerUrl(),
    "SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE application_name = 'calsync' AND wait_event_type = 'Lock'",
  );
  return Number(row!.n);
}
