// A `calsync sync --local` killed with SIGKILL while it writes unchanged calendars' bookkeeping in batches
// (issue 40) leaves every calendar either wholly as before the run or wholly as after its sync: a batch is
// one transaction, so a crash loses at most the bookkeeping of calendars the next run does again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Database } from "../src/store/sqlite/driver.js";
import { syncOwner } from "../src/engine/sync.js";
import { openStore } from "../src/store/index.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";
import { startCalsync } from "./helpers/processes.js";

const { tmp } = useCliFixtures({ built: true });
const CALENDARS = 1500;
// Several loopback hosts, so that the per-host limit lets the run fetch 8 at once.
const HOSTS = ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"];
let hosts: FeedServer[] = [];
beforeAll(async () => {
  hosts = await Promise.all(HOSTS.map((host) => startFeedServer({ host })));
});
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
});

const body = (i: number, version: number) =>
  buildIcs([{ uid: `u${i}`, start: day(10 + version), end: day(12 + version), summary: "Reserved" }]);
const path = (i: number) => `/crash/${i}.ics`;
const host = (i: number) => hosts[i % hosts.length]!;
/** One calendar in ten changes in the killed run; the rest answer 304. */
const changes = (i: number) => i % 10 === 0;

interface Row {
  url: string; etag: string | null; content_hash: string | null; last_status: string; last_error_code: string | null;
  last_synced_at: string; consecutive_failures: number; failing_since: string | null; active: string | null;
}

describe("a sync killed while it writes unchanged calendars in batches", () => {
  it("leaves every calendar wholly before or wholly after", async () => {
    const db = tmp.db();
    const store = await openStore(db);
    const owner = await store.createOwner("Ann");
    for (let i = 0; i < CALENDARS; i++) {
      const property = await store.createProperty(owner.id, `Property ${String(i).padStart(5, "0")}`);
      await store.createCalendar({ propertyId: property.id, source: "other", url: host(i).url(path(i), { body: body(i, 0), etag: `"v0-${i}"` }) });
    }
    const limits = { concurrency: 64, perHost: 64, ownerConcurrency: 64, ownerPerHost: 64 };
    const sync = (at: string) => syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true, fetchLimits: limits, now: () => new Date(at) });
    // Before the killed run: each calendar synced once, then failed once (a streak to end, an error to clear).
    expect((await sync("2020-01-01T00:00:00.000Z")).failed).toBe(0);
    for (let i = 0; i < CALENDARS; i++) host(i).setRoute(path(i), { status: 503 });
    expect((await sync("2020-01-02T00:00:00.000Z")).failed).toBe(CALENDARS);
    await store.close();
    const read = () => {
      const sqlite = new Database(db, { readonly: true });
      try {
        return sqlite.prepare(
          `SELECT c.url, c.etag, c.content_hash, c.last_status, c.last_error_code, c.last_synced_at, c.consecutive_failures,
           c.failing_since, (SELECT group_concat(arrival) FROM reservations r WHERE r.calendar_id = c.id AND r.status = 'active') AS active
           FROM calendars c ORDER BY c.url`,
        ).all() as Row[];
      } finally {
        sqlite.close();
      }
    };
    const before = new Map(read().map((row) => [row.url, row]));

    // The killed run: a few milliseconds per answer, so the batches commit one after another while it goes.
    for (let i = 0; i < CALENDARS; i++) {
      host(i).setRoute(path(i), changes(i) ? { body: body(i, 1), etag: `"v1-${i}"`, delayMs: 5 } : { body: body(i, 0), etag: `"v0-${i}"`, delayMs: 5 });
    }
    const run = startCalsync(["sync", "--local", "--db", db, "--json"]);
    const watcher = new Database(db, { readonly: true });
    const written = watcher.prepare("SELECT COUNT(*) AS n FROM calendars WHERE last_synced_at > '2020-01-02T00:00:00.000Z'");
    let seen = 0;
    try {
      // Killed as soon as a batch has committed and before the last one: more batches are being gathered or written.
      while (seen === 0 && run.child.exitCode === null) {
        seen = (written.get() as { n: number }).n;
        if (seen === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      run.child.kill("SIGKILL");
    } finally {
      watcher.close();
    }
    expect(await run.exited).toBeNull();
    expect(seen).toBeGreaterThan(0);

    const check = new Database(db);
    expect(check.pragma("integrity_check", { simple: true })).toBe("ok");
    check.close();
    const after = read();
    let whollyAfter = 0;
    for (const row of after) {
      const old = before.get(row.url)!;
      if (row.last_synced_at === old.last_synced_at) {
        expect(row, row.url).toEqual(old);
        continue;
      }
      whollyAfter++;
      const i = Number(/\/crash\/(\d+)\.ics/.exec(row.url)![1]);
      expect(row, row.url).toMatchObject({
        etag: changes(i) ? `"v1-${i}"` : `"v0-${i}"`,
        last_status: "success",
        last_error_code: null,
        consecutive_failures: 0,
        failing_since: null,
      });
      expect(row.content_hash === old.content_hash, row.url).toBe(!changes(i));
      expect(row.active, row.url).toBe(changes(i) ? day(11) : day(10));
    }
    // Killed in the middle: some calendars are after, and some still before.
    expect(whollyAfter).toBeGreaterThan(0);
    expect(whollyAfter).toBeLessThan(CALENDARS);
  }, 120_000);
});
