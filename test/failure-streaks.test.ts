// Failure streaks (CONTRACT §8): each calendar keeps `consecutiveFailures` (0 after a success) and
// `failingSince` (the first failure of the current streak); `calendar list` shows them, and the server
// warns once when a streak reaches 3. On SQLite and PostgreSQL alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { startServer } from "../src/server/index.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { runCli } from "./helpers/cli.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";
import { storeKinds, type StoreKind } from "./helpers/stores.js";

let feeds: FeedServer;
let count = 0;
beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => {
  await feeds.close();
});

const good = { body: buildIcs([{ uid: "a", start: day(10), end: day(12), summary: "Reserved" }]) };
const down = { status: 503 };

/** A store with one owner, one property and one calendar whose feed answers `spec`; `path` changes it later. */
async function loft(kind: StoreKind, stores: Store[]) {
  const db = await kind.create();
  const store = await openStore(db);
  stores.push(store);
  const owner = await store.createOwner("Ann");
  const property = await store.createProperty(owner.id, "Loft");
  const path = `/streak/${++count}.ics`;
  const calendar = await store.createCalendar({ propertyId: property.id, source: "other", url: feeds.url(path, down) });
  const clock = { now: new Date("2031-01-01T08:00:00.000Z") };
  const sync = () => syncOwner({ store, ownerId: owner.id, allowPrivateNetworks: true, now: () => clock.now });
  const streak = async () => {
    const { consecutiveFailures, failingSince } = (await store.getCalendar(calendar.id))!;
    return { consecutiveFailures, failingSince };
  };
  return { db, store, ownerId: owner.id, calendar, path, clock, sync, streak };
}

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const store of stores.splice(0)) await store.close();
    await kind.dispose();
  });

  describe("a calendar's failure streak", () => {
    it("counts failures in a row from the first one's time, and a success ends it", async () => {
      const { path, clock, sync, streak } = await loft(kind, stores);
      expect(await streak()).toEqual({ consecutiveFailures: 0, failingSince: null });
      await sync();
      expect(await streak()).toEqual({ consecutiveFailures: 1, failingSince: "2031-01-01T08:00:00.000Z" });
      clock.now = new Date("2031-01-01T09:00:00.000Z");
      await sync();
      expect(await streak()).toEqual({ consecutiveFailures: 2, failingSince: "2031-01-01T08:00:00.000Z" });
      feeds.setRoute(path, good);
      await sync();
      expect(await streak()).toEqual({ consecutiveFailures: 0, failingSince: null });
      // An unchanged feed (same body) is a success too.
      await sync();
      expect(await streak()).toEqual({ consecutiveFailures: 0, failingSince: null });
      feeds.setRoute(path, down);
      clock.now = new Date("2031-01-02T10:00:00.000Z");
      await sync();
      expect(await streak()).toEqual({ consecutiveFailures: 1, failingSince: "2031-01-02T10:00:00.000Z" });
    });

    it("is left alone by a dry run", async () => {
      const { store, ownerId, streak } = await loft(kind, stores);
      await syncOwner({ store, ownerId, allowPrivateNetworks: true, dryRun: true });
      expect(await streak()).toEqual({ consecutiveFailures: 0, failingSince: null });
    });

    it("is shown by calendar list: consecutiveFailures and failingSince in --json, a FAILING SINCE column", async () => {
      const { db, calendar, sync } = await loft(kind, stores);
      await sync();
      await sync();
      const listed = await runCli(["calendar", "list", "--json", "--db", db]);
      expect(JSON.parse(listed.stdout)).toEqual([
        expect.objectContaining({ id: calendar.id, consecutiveFailures: 2, failingSince: "2031-01-01T08:00:00.000Z" }),
      ]);
      const table = await runCli(["calendar", "list", "--db", db]);
      const [header, row] = table.stdout.trimEnd().split("\n");
      expect(header).toMatch(/^ID\s+PROPERTY\s+SOURCE\s+URL\s+LAST SYNC\s+FAILING SINCE\s+STATUS$/);
      expect(row).toMatch(/\s\d{4}-\d{2}-\d{2} \d{2}:\d{2} \(2×\)\s+failed: http_error: feed answered HTTP 503$/);
    });
  });

  describe("calsync serve --sync-every", () => {
    it("warns when a calendar's streak reaches 3, once per streak, not on every later failure", async () => {
      const { store, path, streak } = await loft(kind, stores);
      const lines: string[] = [];
      const server = await startServer({ store, port: 0, syncEveryMs: 50, allowPrivateNetworks: true, log: (line) => lines.push(line) });
      const until = async (done: (failures: number) => boolean) => {
        while (!done((await streak()).consecutiveFailures)) await new Promise((resolve) => setTimeout(resolve, 25));
      };
      const warnings = () => lines.filter((line) => line.includes("WARN calendar failing"));
      try {
        await until((failures) => failures >= 5);
        expect(warnings()).toHaveLength(1);
        expect(warnings()[0]).toMatch(/consecutiveFailures=3 error=http_error trigger=schedule$/);
        feeds.setRoute(path, good);
        await until((failures) => failures === 0);
        feeds.setRoute(path, down);
        await until((failures) => failures >= 4);
        expect(warnings()).toHaveLength(2);
      } finally {
        await server.close();
      }
    });
  });
});
