// A calendar's write is one transaction (CONTRACT §4) even when it is too big to run in one go: a
// 20,000-event feed is written in slices with turns of the event loop between them, so a server keeps
// answering. While such a write is open, other calls on the store wait for it and nothing else sees half
// of it; a failure rolls it back whole.
import { Database } from "../src/store/sqlite/driver.js";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CalendarWrite, DatedEvent } from "../src/engine/model.js";
import { datedEvent } from "../src/engine/nights.js";
import { openStore } from "../src/store/index.js";
import { slicedTransaction } from "../src/store/sqlite/sliced-transaction.js";
import type { Store } from "../src/store/types.js";

/** `YYYY-MM-DD`, `days` from today, so fixtures never go stale. */
const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** `count` stays of one night each, spread over the coming years, with Airbnb-like descriptions. */
const stays = (count: number, prefix = "stay"): DatedEvent[] =>
  Array.from({ length: count }, (_, i) =>
    datedEvent({
      uid: `${prefix}-${i}@airbnb.com`,
      kind: "booking",
      start: day(1 + (i % 1000)),
      end: day(2 + (i % 1000)),
      summary: "Reserved",
      cancelled: false,
      details: { reservationCode: `HM${String(i).padStart(8, "0")}`, description: `Reservation ${i}` },
      raw: { UID: `${prefix}-${i}@airbnb.com`, SUMMARY: "Reserved" },
    }),
  );

const firstSync = (calendarId: string, inserts: DatedEvent[]): CalendarWrite => ({
  calendarId,
  inserts,
  updates: [],
  cancels: [],
  feed: { etag: '"v1"', lastModified: null, contentHash: "h1", lastFound: inserts.length },
  syncedAt: new Date(),
});

/** Resolves after the event loop has turned once. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

let dir: string;
let stores: Store[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "calsync-big-"));
  stores = [];
});
afterEach(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const open = async () => {
  const store = await openStore(join(dir, "calsync.db"));
  stores.push(store);
  return store;
};
const loft = async (store: Store) => {
  const owner = await store.createOwner("Ana");
  const property = await store.createProperty(owner.id, "Loft");
  return store.createCalendar({ propertyId: property.id, url: "https://a.example/1.ics", source: "airbnb" });
};

describe("a write too big to run in one go", () => {
  it("is written whole while the event loop turns: ping answers, other calls wait, another connection sees nothing yet", async () => {
    const store = await open();
    const calendar = await loft(store);
    const other = await open();

    let written = false;
    const writing = store.applyCalendarSync(firstSync(calendar.id, stays(20_000))).then(() => (written = true));
    await nextTurn();
    expect(written).toBe(false);
    // /healthz's ping reads inside the open transaction; a second connection reads the last commit.
    expect(await store.ping()).toBe(true);
    expect(await other.calendarReservations(calendar.id)).toHaveLength(0);
    // A call on the same connection waits for the write instead of running inside its transaction.
    let read: unknown[] | undefined;
    const reading = store.calendarReservations(calendar.id).then((rows) => (read = rows));
    await nextTurn();
    expect(written).toBe(false);
    expect(read).toBeUndefined();

    await writing;
    expect(await reading).toHaveLength(20_000);
    expect(await other.calendarReservations(calendar.id)).toHaveLength(20_000);
    const [listed] = await store.listCalendars({ propertyId: calendar.propertyId });
    expect(listed?.lastStatus).toBe("success");
  });

  it("writes its pages out to the WAL as it goes, which no other connection reads before the commit", async () => {
    const store = await open();
    const calendar = await loft(store);
    const other = await open();
    const wal = join(dir, "calsync.db-wal");
    const walSize = () => statSync(wal, { throwIfNoEntry: false })?.size ?? 0;
    const before = walSize();
    let written = false;
    const writing = store.applyCalendarSync(firstSync(calendar.id, stays(20_000))).then(() => (written = true));
    // Well before the end, the WAL already holds megabytes of the write (its cache spilled), uncommitted.
    while (!written && walSize() < before + 4 * 1024 * 1024) await nextTurn();
    expect(written).toBe(false);
    expect(await other.calendarReservations(calendar.id)).toHaveLength(0);
    await writing;
    expect(await other.calendarReservations(calendar.id)).toHaveLength(20_000);
  });

  it("gives the connection its page cache back after a sliced transaction, committed, rolled back or never begun", async () => {
    const db = new Database(join(dir, "raw.db"));
    try {
      db.pragma("journal_mode = WAL");
      db.exec("CREATE TABLE t (n INTEGER)");
      const cacheSize = db.pragma("cache_size", { simple: true });
      const insert = db.prepare("INSERT INTO t VALUES (?)");
      await slicedTransaction(db, function* () {
        for (let n = 0; n < 100; n++) {
          insert.run(n);
          yield;
        }
      });
      expect(db.pragma("cache_size", { simple: true })).toBe(cacheSize);
      await expect(
        slicedTransaction(db, function* () {
          insert.run(1);
          yield;
          throw new Error("a row failed");
        }),
      ).rejects.toThrow("a row failed");
      expect(db.pragma("cache_size", { simple: true })).toBe(cacheSize);
      expect(db.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 100 });

      // Another connection holds the write lock: BEGIN fails at once, and the cache still comes back.
      const other = new Database(join(dir, "raw.db"));
      try {
        other.exec("BEGIN IMMEDIATE");
        db.pragma("busy_timeout = 0");
        await expect(slicedTransaction(db, function* () {})).rejects.toThrow(/locked|busy/i);
        expect(db.pragma("cache_size", { simple: true })).toBe(cacheSize);
        other.exec("ROLLBACK");
      } finally {
        other.close();
      }
    } finally {
      db.close();
    }
  });

  it("is rolled back whole when a row fails, and the store goes on working", async () => {
    const store = await open();
    const calendar = await loft(store);
    const rows = stays(5_000);
    // The same identity twice breaks (calendar, UID) uniqueness at the very end of the write.
    rows.push({ ...rows[0]! });

    await expect(store.applyCalendarSync(firstSync(calendar.id, rows))).rejects.toThrow(/UNIQUE/);
    expect(await store.calendarReservations(calendar.id)).toHaveLength(0);
    const [listed] = await store.listCalendars({ propertyId: calendar.propertyId });
    expect(listed?.lastStatus).toBeNull();

    await store.applyCalendarSync(firstSync(calendar.id, stays(3_000, "again")));
    expect(await store.calendarReservations(calendar.id)).toHaveLength(3_000);
  });

  it("writes nothing for a calendar removed while its feed was read", async () => {
    const store = await open();
    const calendar = await loft(store);
    await store.removeCalendar(calendar.id);
    await store.applyCalendarSync(firstSync(calendar.id, stays(5_000)));
    const db = new Database(join(dir, "calsync.db"), { readonly: true });
    try {
      expect(db.prepare("SELECT COUNT(*) AS n FROM reservations").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  it("leaves its pages checkpointed into the database file, not piling up in the WAL", async () => {
    const store = await open();
    const calendar = await loft(store);
    const path = join(dir, "calsync.db");
    const before = statSync(path).size;
    await store.applyCalendarSync(firstSync(calendar.id, stays(20_000)));
    // The checkpoint runs on a worker thread after the commit.
    for (let waited = 0; statSync(path).size <= before && waited < 15_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(statSync(path).size).toBeGreaterThan(before + 1_000_000);
  });
});
