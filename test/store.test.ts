import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FeedEvent } from "../src/engine/model.js";
import { defaultDatabasePath, openStore, resolveDatabasePath, SCHEMA_VERSION } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";

const event = (uid: string, start: string, end: string, summary = "Reserved"): FeedEvent => ({
  uid, kind: "booking", start, end, summary, cancelled: false, details: {}, raw: { UID: uid },
});

let dir: string;
let stores: Store[];
const open = (name = "calsync.db") => {
  const store = openStore(join(dir, name));
  stores.push(store);
  return store;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "calsync-store-"));
  stores = [];
});
afterEach(() => {
  for (const store of stores) store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("openStore", () => {
  it("creates the file, its directories and the schema, in WAL mode", () => {
    const store = openStore(join(dir, "nested", "deeper", "calsync.db"));
    stores.push(store);
    const db = new Database(store.path, { readonly: true });
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("keeps data and schema version across re-opening", () => {
    const first = open();
    const owner = first.createOwner("Ana");
    first.close();
    const second = open();
    expect(second.listOwners()).toEqual([owner]);
  });

  it("refuses a database written by a newer calsync with a clear message", () => {
    const path = join(dir, "future.db");
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openStore(path)).toThrow(/newer than this calsync understands/);
  });
});

describe("sync port", () => {
  it("orders calendars by property name, then creation, and counts properties without calendars", async () => {
    const store = open();
    const owner = store.createOwner("Ana");
    const zebra = store.createProperty(owner.id, "Zebra House");
    const alpha = store.createProperty(owner.id, "Alpha Flat");
    store.createProperty(owner.id, "Empty Cabin");
    const z1 = store.createCalendar({ propertyId: zebra.id, url: "https://a.example/1.ics", source: "airbnb" });
    const a1 = store.createCalendar({ propertyId: alpha.id, url: "https://a.example/2.ics", source: "vrbo" });
    const a2 = store.createCalendar({ propertyId: alpha.id, url: "https://a.example/3.ics", source: "booking" });
    const other = store.createOwner("Ben");
    store.createProperty(other.id, "Ben's");

    const { propertiesChecked, calendars } = await store.ownerCalendars(owner.id);
    expect(propertiesChecked).toBe(3);
    expect(calendars.map((c) => c.id)).toEqual([a1.id, a2.id, z1.id]);
    expect(calendars[0]).toMatchObject({ propertyName: "Alpha Flat", source: "vrbo", lastFound: 0, etag: null });
  });

  it("writes a calendar's inserts, updates, cancels and feed state together", async () => {
    const store = open();
    const owner = store.createOwner("Ana");
    const property = store.createProperty(owner.id, "Loft");
    const calendar = store.createCalendar({ propertyId: property.id, url: "https://a.example/1.ics", source: "airbnb" });
    const feed = { etag: '"v1"', lastModified: null, contentHash: "h1", lastFound: 2 };
    await store.applyCalendarSync({
      calendarId: calendar.id,
      inserts: [event("a", "2031-01-01", "2031-01-05"), event("b", "2031-02-01", "2031-02-03")],
      updates: [], cancels: [], feed, syncedAt: new Date(),
    });
    const [a, b] = await store.calendarReservations(calendar.id).then((rows) => rows.sort((x, y) => x.uid.localeCompare(y.uid)));
    await store.applyCalendarSync({
      calendarId: calendar.id,
      inserts: [],
      updates: [{ id: a!.id, event: event("a", "2031-01-02", "2031-01-05") }],
      cancels: [b!.id],
      feed: { ...feed, etag: '"v2"', lastFound: 1 },
      syncedAt: new Date(),
    });
    const rows = store.listReservations({ propertyId: property.id });
    expect(rows.map((r) => [r.uid, r.status, r.start])).toEqual([
      ["a", "active", "2031-01-02"],
      ["b", "cancelled", "2031-02-01"],
    ]);
    expect((await store.ownerCalendars(owner.id)).calendars[0]).toMatchObject({ etag: '"v2"', lastFound: 1 });
  });

  it("writes nothing of a calendar when any part of its write fails", async () => {
    const store = open();
    const owner = store.createOwner("Ana");
    const property = store.createProperty(owner.id, "Loft");
    const calendar = store.createCalendar({ propertyId: property.id, url: "https://a.example/1.ics", source: "airbnb" });
    const feed = { etag: '"v1"', lastModified: null, contentHash: "h1", lastFound: 1 };
    await store.applyCalendarSync({
      calendarId: calendar.id, inserts: [event("a", "2031-01-01", "2031-01-05")], updates: [], cancels: [], feed,
      syncedAt: new Date(),
    });
    const before = store.listReservations();
    // The second insert repeats an identity: UNIQUE(calendar_id, uid) fails after the first insert ran.
    await expect(
      store.applyCalendarSync({
        calendarId: calendar.id,
        inserts: [event("c", "2031-03-01", "2031-03-02"), event("a", "2031-04-01", "2031-04-02")],
        updates: [], cancels: [before[0]!.id], feed: { ...feed, etag: '"v2"' }, syncedAt: new Date(),
      }),
    ).rejects.toThrow(/UNIQUE/);
    expect(store.listReservations()).toEqual(before);
    expect((await store.ownerCalendars(owner.id)).calendars[0]?.etag).toBe('"v1"');
  });

  it("records a failure on the calendar without touching its reservations", async () => {
    const store = open();
    const owner = store.createOwner("Ana");
    const property = store.createProperty(owner.id, "Loft");
    const calendar = store.createCalendar({ propertyId: property.id, url: "https://a.example/1.ics", source: "airbnb" });
    await store.applyCalendarSync({
      calendarId: calendar.id, inserts: [event("a", "2031-01-01", "2031-01-05")], updates: [], cancels: [],
      feed: { etag: null, lastModified: null, contentHash: "h", lastFound: 1 }, syncedAt: new Date(),
    });
    await store.recordCalendarFailure({
      calendarId: calendar.id, error: { code: "http_error", message: "feed answered HTTP 503", httpStatus: 503 },
      failedAt: new Date(),
    });
    expect(store.getCalendar(calendar.id)).toMatchObject({ lastStatus: "failed", lastErrorCode: "http_error" });
    expect(store.listReservations({ status: "active" })).toHaveLength(1);
  });

  it("keeps the sync history with one row per run", async () => {
    const store = open();
    const owner = store.createOwner("Ana");
    await store.recordSyncRun({
      ownerId: owner.id, trigger: "api", dryRun: false, startedAt: new Date(), calendarIds: [],
      response: { ok: true, syncedCalendars: 0, propertiesChecked: 0, failed: 0, durationMs: 3, results: [] },
    });
    expect(store.listSyncRuns({ ownerId: owner.id })).toMatchObject([{ trigger: "api", ok: true, durationMs: 3 }]);
  });
});

describe("administration", () => {
  it("removes a property with its calendars and reservations", async () => {
    const store = open();
    const owner = store.createOwner("Ana");
    const property = store.createProperty(owner.id, "Loft");
    const calendar = store.createCalendar({ propertyId: property.id, url: "https://a.example/1.ics", source: "airbnb" });
    await store.applyCalendarSync({
      calendarId: calendar.id, inserts: [event("a", "2031-01-01", "2031-01-05")], updates: [], cancels: [],
      feed: { etag: null, lastModified: null, contentHash: "h", lastFound: 1 }, syncedAt: new Date(),
    });
    expect(store.removeProperty(property.id)).toBe(true);
    expect(store.removeProperty(property.id)).toBe(false);
    expect(store.listCalendars()).toEqual([]);
    expect(store.listReservations()).toEqual([]);
  });

  it("finds tokens by hash and revokes them once", () => {
    const store = open();
    const owner = store.createOwner("Ana");
    const token = store.createToken({ ownerId: owner.id, name: "ci", prefix: "cs_abcd", hash: "f".repeat(64), expiresAt: null });
    expect(store.findTokenByHash("f".repeat(64))?.id).toBe(token.id);
    expect(store.findTokenByHash("e".repeat(64))).toBeUndefined();
    expect(store.revokeToken(token.id)).toBe(true);
    expect(store.findTokenByHash("f".repeat(64))?.revokedAt).not.toBeNull();
    expect(store.revokeToken("tok_missing")).toBe(false);
  });
});

describe("database path", () => {
  it("prefers --db, then CALSYNC_DB, then the XDG data directory", () => {
    expect(resolveDatabasePath("/x/flag.db", { CALSYNC_DB: "/x/env.db" })).toBe("/x/flag.db");
    expect(resolveDatabasePath(undefined, { CALSYNC_DB: "/x/env.db" })).toBe("/x/env.db");
    expect(defaultDatabasePath({ HOME: "/home/u", XDG_DATA_HOME: "/data" }, "linux")).toBe("/data/calsync/calsync.db");
    expect(defaultDatabasePath({ HOME: "/home/u" }, "linux")).toBe("/home/u/.local/share/calsync/calsync.db");
  });
});
