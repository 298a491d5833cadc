import { Database } from "../src/store/sqlite/driver.js";
import { buildSync } from "esbuild";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CalendarWrite, DatedEvent } from "../src/engine/model.js";
import { datedEvent } from "../src/engine/nights.js";
import { defaultDatabasePath, openStore, resolveDatabasePath, SCHEMA_VERSION } from "../src/store/index.js";
import { MIGRATIONS, migrate } from "../src/store/sqlite/migrations.js";
import type { Store } from "../src/store/types.js";
import { storeKinds } from "./helpers/stores.js";

/** `YYYY-MM-DD`, `days` from today, so fixtures never go stale. */
const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

const event = (uid: string, start: string, end: string, summary = "Reserved"): DatedEvent => datedEvent({
  uid, kind: "booking", start, end, summary, cancelled: false, details: {}, raw: { UID: uid },
});
const feed = (etag: string | null, lastFound: number) => ({ etag, lastModified: null, contentHash: `h-${etag}`, lastFound });
const write = (calendarId: string, parts: Partial<CalendarWrite>): CalendarWrite => ({
  calendarId, inserts: [], updates: [], cancels: [], feed: feed(null, 0), syncedAt: new Date(), ...parts,
});

let dir: string;
let stores: Store[];
let raws: Database[];
const open = async (name = "calsync.db") => {
  const store = await openStore(join(dir, name));
  stores.push(store);
  return store;
};
/** A second, plain connection to look at what the store left on disk. */
const raw = (path: string) => {
  const db = new Database(path);
  raws.push(db);
  return db;
};
/** An owner with one property and one calendar, the usual starting point. */
const loft = async (store: Store) => {
  const owner = await store.createOwner("Ana");
  const property = await store.createProperty(owner.id, "Loft");
  const calendar = await store.createCalendar({ propertyId: property.id, url: "https://a.example/1.ics", source: "airbnb" });
  return { owner, property, calendar };
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "calsync-"));
  stores = [];
  raws = [];
});
afterEach(async () => {
  for (const db of raws) db.close();
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("opening a database", () => {
  it("creates the file, its directories and the schema, in WAL mode", async () => {
    const store = await openStore(join(dir, "nested", "deeper", "calsync.db"));
    stores.push(store);
    const db = raw(store.path);
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(await store.ping()).toBe(true);
  });

  it("keeps data and schema version when opened again", async () => {
    const first = await open();
    const owner = await first.createOwner("Ana");
    await first.close();
    const second = await open();
    expect(await second.listOwners()).toEqual([owner]);
    expect(raw(second.path).pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
  });

  it("upgrades a file of an older version on open", async () => {
    const path = join(dir, "old.db");
    const old = new Database(path);
    old.exec("CREATE TABLE notes (text TEXT)"); // a file that exists but has never seen calsync's schema
    expect(old.pragma("user_version", { simple: true })).toBe(0);
    old.close();

    const store = await open("old.db");
    expect((await store.createOwner("Ana")).name).toBe("Ana");
    expect(raw(path).pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
  });

  it("upgrades a version-1 file holding reservations without losing any", async () => {
    const path = join(dir, "v1.db");
    const v1 = raw(path);
    migrate(v1, MIGRATIONS.slice(0, 1));
    // Rows as version 1 wrote them: ids of 16 random characters, no time prefix.
    v1.exec(`
      INSERT INTO owners VALUES ('own_0123456789abcdef', 'Ana', 'x');
      INSERT INTO properties (id, owner_id, name, created_at) VALUES ('prp_0123456789abcdef', 'own_0123456789abcdef', 'Loft', 'x');
      INSERT INTO calendars (id, property_id, url, source, created_at)
        VALUES ('cal_0123456789abcdef', 'prp_0123456789abcdef', 'https://a.example/1.ics', 'airbnb', 'x');`);
    v1.prepare(
      `INSERT INTO reservations (id, calendar_id, uid, kind, status, start, "end", summary, details, raw, created_at, updated_at)
       VALUES ('rsv_0123456789abcdef', 'cal_0123456789abcdef', 'a', 'booking', 'active', ?, ?, 'Reserved', '{}', '{}', 'x', 'x')`,
    ).run(day(10), day(12));
    expect(v1.pragma("user_version", { simple: true })).toBe(1);

    const store = await open("v1.db");
    expect(v1.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect((await store.listReservations()).map((r) => [r.id, r.start, r.end])).toEqual([["rsv_0123456789abcdef", day(10), day(12)]]);
    const indexes = v1.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'reservations'").pluck().all();
    expect(indexes).not.toContain("reservations_start");
    await store.applyCalendarSync(write("cal_0123456789abcdef", { inserts: [event("b", day(20), day(22))] }));
    expect((await store.listReservations()).map((r) => r.uid)).toEqual(["a", "b"]);
  });

  it("runs only the steps a file has not run yet, each in its own transaction", () => {
    const db = raw(join(dir, "steps.db"));
    const steps = ["CREATE TABLE a (x)", "CREATE TABLE b (x)", "CREATE TABLE c (x); SELECT no_such_function()"];
    migrate(db, steps.slice(0, 1));
    migrate(db, steps.slice(0, 2)); // would fail on "table a already exists" if step 1 ran again
    expect(db.pragma("user_version", { simple: true })).toBe(2);

    expect(() => migrate(db, steps)).toThrow(/no_such_function/);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(["a", "b"]);
    expect(db.pragma("user_version", { simple: true })).toBe(2);
  });

  it("refuses a database written by a newer calsync with a clear message, leaving it as it was", async () => {
    const path = join(dir, "future.db");
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    await expect(openStore(path)).rejects.toThrow(
      `database schema version ${SCHEMA_VERSION + 1} is newer than this calsync understands (${SCHEMA_VERSION}): upgrade calsync`,
    );
    const after = raw(path);
    expect(after.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION + 1);
    expect(after.prepare("SELECT COUNT(*) FROM sqlite_master").pluck().get()).toBe(0);
  });

  it("lets several processes open a new file at the same time (serve and a CLI command)", async () => {
    // The store bundled to plain JS, since child processes of Node 20 cannot run TypeScript.
    buildSync({
      entryPoints: [resolve("src/store/index.ts")], bundle: true, platform: "node", format: "esm",
      external: ["better-sqlite3", "better-sqlite3-node20"], outfile: join(dir, "store.mjs"), logLevel: "silent",
    });
    symlinkSync(resolve("node_modules"), join(dir, "node_modules"), "junction");
    writeFileSync(join(dir, "open.mjs"), `import { openStore } from "./store.mjs";
      const store = await openStore(process.argv[2]); await store.createOwner("x"); await store.close();`);
    const run = (path: string) =>
      new Promise<{ code: number | null; stderr: string }>((done) => {
        const child = spawn(process.execPath, [join(dir, "open.mjs"), path], { stdio: ["ignore", "ignore", "pipe"] });
        let stderr = "";
        child.stderr.on("data", (chunk) => (stderr += chunk));
        child.on("close", (code) => done({ code, stderr }));
      });

    for (let round = 0; round < 6; round++) {
      const path = join(dir, `race-${round}`, "calsync.db");
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => run(path)));
      expect(outcomes.filter((o) => o.code !== 0).map((o) => o.stderr)).toEqual([]);
      expect(await (await open(join(`race-${round}`, "calsync.db"))).listOwners()).toHaveLength(6);
    }
  }, 60_000);

  it("works in memory", async () => {
    const store = await openStore(":memory:");
    stores.push(store);
    const { owner } = await loft(store);
    expect((await store.ownerCalendars(owner.id)).calendars).toHaveLength(1);
  });

  it("answers ping until closed", async () => {
    const store = await open();
    expect(await store.ping()).toBe(true);
    await store.close();
    expect(await store.ping()).toBe(false);
    await store.close(); // closing twice is harmless
  });
});

// The same suite on both implementations: same behaviour, same records.
describe.each(storeKinds())("$name store", (kind) => {
  let location: string;
  /** A store on a fresh database of this kind. */
  const open = async () => {
    location = await kind.create();
    const store = await openStore(location);
    stores.push(store);
    return store;
  };
  /** SQL straight on the database the last `open()` made, to look at what the store wrote. */
  const query = (sql: string, params?: unknown[]) => kind.query(location, sql, params);
  afterAll(() => kind.dispose());

  describe("the engine's port", () => {
    it("orders calendars by property name, then property creation, then calendar creation", async () => {
      const store = await open();
      const owner = await store.createOwner("Ana");
      const zebra = await store.createProperty(owner.id, "Zebra House");
      const beach1 = await store.createProperty(owner.id, "beach hut");
      const alpha = await store.createProperty(owner.id, "Alpha Flat");
      const beach2 = await store.createProperty(owner.id, "beach hut"); // same name: creation decides, every time
      await store.createProperty(owner.id, "Empty Cabin");
      const cal = async (propertyId: string, n: number) =>
        (await store.createCalendar({ propertyId, url: `https://a.example/${n}.ics`, source: "other" })).id;
      const z1 = await cal(zebra.id, 1);
      const b2 = await cal(beach2.id, 2);
      const a1 = await cal(alpha.id, 3);
      const b1 = await cal(beach1.id, 4);
      const a2 = await cal(alpha.id, 5);
      const other = await store.createOwner("Ben");
      await cal((await store.createProperty(other.id, "Aardvark")).id, 6);

      const { propertiesChecked, calendars } = await store.ownerCalendars(owner.id);
      expect(propertiesChecked).toBe(5);
      expect(calendars.map((c) => c.id)).toEqual([a1, a2, b1, b2, z1]);
      expect(calendars[0]).toMatchObject({ propertyName: "Alpha Flat", propertyId: alpha.id, lastFound: 0, etag: null });
      expect((await store.listCalendars({ ownerId: owner.id })).map((c) => c.id)).toEqual([a1, a2, b1, b2, z1]);
      expect((await store.listProperties(owner.id)).map((p) => p.name)).toEqual([
        "Alpha Flat", "beach hut", "beach hut", "Empty Cabin", "Zebra House",
      ]);
    });

    it("counts an owner's properties even when none has a calendar", async () => {
      const store = await open();
      const owner = await store.createOwner("Ana");
      expect(await store.ownerCalendars(owner.id)).toEqual({ propertiesChecked: 0, calendars: [] });
      await store.createProperty(owner.id, "Loft");
      expect(await store.ownerCalendars(owner.id)).toEqual({ propertiesChecked: 1, calendars: [] });
    });

    it("writes a calendar's inserts, updates, cancels and feed state together", async () => {
      const store = await open();
      const { owner, property, calendar } = await loft(store);
      await store.applyCalendarSync(write(calendar.id, {
        inserts: [event("a", day(10), day(14)), event("b", day(20), day(22)), event("c", day(30), day(31))],
        feed: feed('"v1"', 3),
      }));
      const byUid = new Map((await store.calendarReservations(calendar.id)).map((r) => [r.uid, r]));
      expect([...byUid.values()].every((r) => r.status === "active" && r.id.startsWith("rsv_"))).toBe(true);
      await store.applyCalendarSync(write(calendar.id, { cancels: [byUid.get("c")!.id] }));

      const moved = { ...event("a", day(11), day(14), "Jo"), kind: "block" as const, details: { guestName: "Jo" } };
      await store.applyCalendarSync(write(calendar.id, {
        inserts: [event("d", day(40), day(41))],
        updates: [{ id: byUid.get("a")!.id, event: moved }, { id: byUid.get("c")!.id, event: event("c", day(30), day(31)) }],
        cancels: [byUid.get("b")!.id],
        feed: feed('"v2"', 3),
      }));

      const rows = await store.listReservations({ propertyId: property.id });
      expect(rows.map((r) => [r.uid, r.status, r.kind, r.start, r.summary])).toEqual([
        ["a", "active", "block", day(11), "Jo"],
        ["b", "cancelled", "booking", day(20), "Reserved"],
        ["c", "active", "booking", day(30), "Reserved"], // back from cancelled, same row
        ["d", "active", "booking", day(40), "Reserved"],
      ]);
      expect(rows[0]).toMatchObject({ id: byUid.get("a")!.id, details: { guestName: "Jo" }, source: "airbnb" });
      expect(rows[2]!.id).toBe(byUid.get("c")!.id);
      expect((await store.ownerCalendars(owner.id)).calendars[0]).toMatchObject({
        etag: '"v2"', contentHash: 'h-"v2"', lastFound: 3,
      });
      expect(await store.getCalendar(calendar.id)).toMatchObject({ lastStatus: "success", lastErrorCode: null });
    });

    it("writes nothing of a calendar when any part of its write fails", async () => {
      const store = await open();
      const { owner, calendar } = await loft(store);
      await store.applyCalendarSync(write(calendar.id, { inserts: [event("a", day(10), day(14))], feed: feed('"v1"', 1) }));
      const before = await store.listReservations();
      const calendarBefore = await store.getCalendar(calendar.id);

      // The third insert repeats an identity: UNIQUE(calendar_id, uid) fails after the others already ran.
      await expect(store.applyCalendarSync(write(calendar.id, {
                inserts: [event("c", day(30), day(31)), event("d", day(40), day(41)), event("a", day(50), day(51))],
                updates: [{ id: before[0]!.id, event: event("a", day(12), day(14)) }],
                cancels: [before[0]!.id],
                feed: feed('"v2"', 3),
              }))).rejects.toThrow(/unique/i);

      expect(await store.listReservations()).toEqual(before);
      expect(await store.getCalendar(calendar.id)).toEqual(calendarBefore);
      expect((await store.ownerCalendars(owner.id)).calendars[0]).toMatchObject({ etag: '"v1"', lastFound: 1 });
    });

    it("writes nothing, and does not fail, for a calendar removed while its feed was fetched", async () => {
      const store = await open();
      const { property, calendar } = await loft(store);
      const kept = await store.createCalendar({ propertyId: property.id, url: "https://b.example/2.ics", source: "vrbo" });
      await store.removeCalendar(calendar.id);
      await store.applyCalendarSync(write(calendar.id, { inserts: [event("a", day(10), day(14))], feed: feed('"v1"', 1) }));
      expect(await store.listReservations()).toEqual([]);
      expect(await store.getCalendar(kept.id)).toMatchObject({ lastStatus: null });
    });

    it("records a failure on the calendar without touching its reservations or validators", async () => {
      const store = await open();
      const { owner, calendar } = await loft(store);
      await store.applyCalendarSync(write(calendar.id, { inserts: [event("a", day(10), day(14))], feed: feed('"v1"', 1) }));
      const before = await store.listReservations();
      const failedAt = new Date();
      await store.recordCalendarFailure({
        calendarId: calendar.id, error: { code: "http_error", message: "feed answered HTTP 503", httpStatus: 503 }, failedAt,
      });
      expect(await store.getCalendar(calendar.id)).toMatchObject({
        lastStatus: "failed", lastErrorCode: "http_error", lastErrorMessage: "feed answered HTTP 503",
        lastSyncedAt: failedAt.toISOString(),
      });
      expect(await store.listReservations()).toEqual(before);
      expect((await store.ownerCalendars(owner.id)).calendars[0]).toMatchObject({ etag: '"v1"', lastFound: 1 });

      // The next success clears the error.
      await store.applyCalendarSync(write(calendar.id, { feed: feed('"v1"', 1) }));
      expect(await store.getCalendar(calendar.id)).toMatchObject({ lastStatus: "success", lastErrorCode: null, lastErrorMessage: null });
    });
  });

  describe("the sync history", () => {
    const response = (propertyId: string) => ({
      ok: false, syncedCalendars: 2, propertiesChecked: 1, failed: 1, durationMs: 412,
      results: [
        { propertyId, propertyName: "Loft", source: "airbnb" as const, ok: true,
          result: { status: "success" as const, reservationsFound: 4, reservationsCreated: 1, reservationsUpdated: 0,
            reservationsCancelled: 1 } },
        { propertyId, propertyName: "Loft", source: "booking" as const, ok: false,
          result: { status: "failed" as const, reservationsFound: 0, reservationsCreated: 0, reservationsUpdated: 0,
            reservationsCancelled: 0, error: { code: "http_error" as const, message: "feed answered HTTP 503", httpStatus: 503 } } },
      ],
    });

    it("keeps each run with one result per calendar, newest run first", async () => {
      const store = await open();
      const { owner, property, calendar } = await loft(store);
      const booking = await store.createCalendar({ propertyId: property.id, url: "https://b.example/2.ics", source: "booking" });
      const earlier = new Date(Date.now() - 60_000);
      await store.recordSyncRun({
        ownerId: owner.id, trigger: "schedule", dryRun: false, startedAt: earlier, calendarIds: [],
        response: { ok: true, syncedCalendars: 0, propertiesChecked: 1, failed: 0, durationMs: 3, results: [] },
      });
      await store.recordSyncRun({
        ownerId: owner.id, trigger: "api", dryRun: false, startedAt: new Date(), calendarIds: [calendar.id, booking.id],
        response: response(property.id),
      });

      const runs = await store.listSyncRuns({ ownerId: owner.id });
      expect(runs).toMatchObject([
        { trigger: "api", ok: false, syncedCalendars: 2, failed: 1, durationMs: 412, dryRun: false },
        { trigger: "schedule", ok: true, startedAt: earlier.toISOString() },
      ]);
      expect(runs[0]!.id).toMatch(/^run_[0-9A-Za-z]{20}$/);
      expect(await store.listSyncRuns({ ownerId: owner.id, limit: 1 })).toHaveLength(1);
      const results = await query(
        "SELECT calendar_id, status, found, error_code, http_status FROM sync_run_results WHERE run_id = ? ORDER BY position",
        [runs[0]!.id],
      );
      expect(results).toEqual([
        { calendar_id: calendar.id, status: "success", found: 4, error_code: null, http_status: null },
        { calendar_id: booking.id, status: "failed", found: 0, error_code: "http_error", http_status: 503 },
      ]);
    });

    it("keeps the history of a calendar removed during or after the run, unlinked", async () => {
      const store = await open();
      const { owner, property, calendar } = await loft(store);
      const booking = await store.createCalendar({ propertyId: property.id, url: "https://b.example/2.ics", source: "booking" });
      await store.removeCalendar(booking.id); // removed while the run was going
      await store.recordSyncRun({
        ownerId: owner.id, trigger: "cli", dryRun: false, startedAt: new Date(), calendarIds: [calendar.id, booking.id],
        response: response(property.id),
      });
      await store.removeCalendar(calendar.id); // removed later
      const linked = (await query("SELECT calendar_id FROM sync_run_results ORDER BY position")).map((row) => row.calendar_id);
      expect(linked).toEqual([null, null]);
      expect(await store.listSyncRuns()).toHaveLength(1);
    });
  });

  describe("administration", () => {
    it("takes text holding NUL from any door (a sign-in form, a name) as SQLite does, never failing on PostgreSQL", async () => {
      const store = await open();
      // PostgreSQL text cannot hold U+0000: it becomes U+FFFD there, where SQLite keeps it.
      const owner = await store.createOwner("Ana\0Lima", { email: "ana@example.com" });
      expect(await store.findOwnerByEmail("ana\0@example.com")).toBeUndefined();
      const property = await store.createProperty(owner.id, "Lo\0ft");
      const unseen = (name = "") => name.replace(/[\0\uFFFD]/, "");
      const names = [(await store.getProperty(property.id))?.name, (await store.listOwners())[0]?.name];
      expect(names.map(unseen)).toEqual(["Loft", "AnaLima"]);
    });

    it("removes a property with its calendars and reservations, and says when it knows no such property", async () => {
      const store = await open();
      const { owner, property, calendar } = await loft(store);
      const other = await store.createProperty(owner.id, "Cabin");
      const otherCalendar = await store.createCalendar({ propertyId: other.id, url: "https://c.example/c.ics", source: "vrbo" });
      await store.applyCalendarSync(write(calendar.id, { inserts: [event("a", day(10), day(14))] }));
      await store.applyCalendarSync(write(otherCalendar.id, { inserts: [event("b", day(10), day(14))] }));

      expect(await store.removeProperty(property.id)).toBe(true);
      expect(await store.removeProperty(property.id)).toBe(false);
      expect(await store.getProperty(property.id)).toBeUndefined();
      expect((await store.listCalendars()).map((c) => c.id)).toEqual([otherCalendar.id]);
      expect((await store.listReservations()).map((r) => r.uid)).toEqual(["b"]);
    });

    it("dates a property's feed change by the commit, not the sync's clock read before the fetch", async () => {
      const store = await open();
      const { property, calendar } = await loft(store);
      const hourAgo = new Date(Date.now() - 3_600_000);
      const before = new Date().toISOString();
      await store.applyCalendarSync(write(calendar.id, { inserts: [event("a", day(10), day(14))], syncedAt: hourAgo }));
      expect((await store.propertyFeedReservations(property.id)).updatedAt! >= before).toBe(true);
      // Nothing written, nothing changed: the date stays.
      const stamped = (await store.propertyFeedReservations(property.id)).updatedAt;
      await store.applyCalendarSync(write(calendar.id, {}));
      expect((await store.propertyFeedReservations(property.id)).updatedAt).toBe(stamped);
    });

    it("removes a calendar with its reservations only", async () => {
      const store = await open();
      const { property, calendar } = await loft(store);
      const kept = await store.createCalendar({ propertyId: property.id, url: "https://b.example/2.ics", source: "booking" });
      await store.applyCalendarSync(write(calendar.id, { inserts: [event("a", day(10), day(14))] }));
      await store.applyCalendarSync(write(kept.id, { inserts: [event("b", day(20), day(24))] }));

      expect(await store.removeCalendar(calendar.id)).toBe(true);
      expect(await store.removeCalendar(calendar.id)).toBe(false);
      expect(await store.getCalendar(calendar.id)).toBeUndefined();
      expect((await store.listReservations()).map((r) => r.uid)).toEqual(["b"]);
      expect(await store.getProperty(property.id)).toBeDefined();
    });

    it("deletes everything of an owner with the owner", async () => {
      const store = await open();
      const { owner, calendar } = await loft(store);
      const ben = await loft(store);
      await store.createToken({ ownerId: owner.id, name: "ci", prefix: "cs_abcd", hash: "a".repeat(64), expiresAt: null });
      await store.applyCalendarSync(write(calendar.id, { inserts: [event("a", day(10), day(14))] }));
      await store.applyCalendarSync(write(ben.calendar.id, { inserts: [event("b", day(10), day(14))] }));

      // No door removes owners yet; the schema must still cascade for the one that will.
      await query("DELETE FROM owners WHERE id = ?", [owner.id]);

      expect(await store.listProperties(owner.id)).toEqual([]);
      expect(await store.listTokens(owner.id)).toEqual([]);
      expect((await store.listReservations()).map((r) => r.uid)).toEqual(["b"]);
      expect((await store.listCalendars()).map((c) => c.id)).toEqual([ben.calendar.id]);
    });

    it("refuses a property for an unknown owner", async () => {
      const store = await open();
      await expect(store.createProperty("own_missing", "Loft")).rejects.toThrow(/foreign key/i);
    });

    it("finds tokens by hash, remembers their use and revokes them once", async () => {
      const store = await open();
      const owner = await store.createOwner("Ana");
      const expiresAt = new Date(Date.now() + 86_400_000);
      const token = await store.createToken({ ownerId: owner.id, name: "ci", prefix: "cs_abcd", hash: "f".repeat(64), expiresAt });
      expect(token).toMatchObject({ name: "ci", prefix: "cs_abcd", expiresAt: expiresAt.toISOString(), revokedAt: null });
      expect(token.id).toMatch(/^tok_[0-9A-Za-z]{20}$/);
      expect((await store.findTokenByHash("f".repeat(64)))?.id).toBe(token.id);
      expect(await store.findTokenByHash("e".repeat(64))).toBeUndefined();

      const used = new Date("2030-01-01T10:00:00.000Z");
      await store.touchToken(token.id, used);
      expect((await store.findTokenByHash("f".repeat(64)))?.lastUsedAt).toBe(used.toISOString());

      const first = new Date("2030-01-02T10:00:00.000Z");
      expect(await store.revokeToken(token.id, first)).toBe(true);
      expect(await store.revokeToken(token.id, new Date("2030-01-03T10:00:00.000Z"))).toBe(true);
      expect((await store.findTokenByHash("f".repeat(64)))?.revokedAt).toBe(first.toISOString());
      expect(await store.revokeToken("tok_missing")).toBe(false);
    });

    it("lists tokens per owner and never stores one hash twice", async () => {
      const store = await open();
      const ana = await store.createOwner("Ana");
      const ben = await store.createOwner("Ben");
      const t1 = await store.createToken({ ownerId: ana.id, name: "one", prefix: "cs_1", hash: "1".repeat(64), expiresAt: null });
      const t2 = await store.createToken({ ownerId: ben.id, name: "two", prefix: "cs_2", hash: "2".repeat(64), expiresAt: null });
      expect((await store.listTokens(ana.id)).map((t) => t.id)).toEqual([t1.id]);
      expect((await store.listTokens()).map((t) => t.id)).toEqual([t1.id, t2.id]);
      await expect(
        store.createToken({ ownerId: ben.id, name: "dup", prefix: "cs_1", hash: "1".repeat(64), expiresAt: null }),
      ).rejects.toThrow(/unique/i);
    });

    it("finds a property by its outbound feed token", async () => {
      const store = await open();
      const { owner, property } = await loft(store);
      expect(property.feedToken).toBeNull();
      await store.setPropertyFeedToken(property.id, "secret-1");
      expect((await store.getPropertyByFeedToken("secret-1"))?.id).toBe(property.id);
      expect(await store.getPropertyByFeedToken("secret-2")).toBeUndefined();
      const other = await store.createProperty(owner.id, "Cabin");
      await expect(store.setPropertyFeedToken(other.id, "secret-1")).rejects.toThrow(/unique/i);
    });

    it("lists reservations by property name and start, filtered by owner, property and status", async () => {
      const store = await open();
      const ana = await loft(store); // "Loft"
      const cabin = await store.createProperty(ana.owner.id, "Cabin");
      const cabinCal = await store.createCalendar({ propertyId: cabin.id, url: "https://c.example/c.ics", source: "vrbo" });
      const ben = await loft(store);
      await store.applyCalendarSync(write(ana.calendar.id, { inserts: [event("l2", day(20), day(21)), event("l1", day(5), day(6))] }));
      await store.applyCalendarSync(write(cabinCal.id, { inserts: [event("c1", day(30), day(31))] }));
      await store.applyCalendarSync(write(ben.calendar.id, { inserts: [event("b1", day(1), day(2))] }));
      const l2 = (await store.listReservations()).find((r) => r.uid === "l2")!;
      await store.applyCalendarSync(write(ana.calendar.id, { cancels: [l2.id] }));

      expect((await store.listReservations({ ownerId: ana.owner.id })).map((r) => r.uid)).toEqual(["c1", "l1", "l2"]);
      expect((await store.listReservations({ ownerId: ana.owner.id, status: "active" })).map((r) => r.uid)).toEqual(["c1", "l1"]);
      expect((await store.listReservations({ status: "cancelled" })).map((r) => r.uid)).toEqual(["l2"]);
      expect((await store.listReservations({ propertyId: ben.property.id })).map((r) => r.uid)).toEqual(["b1"]);
      expect((await store.listReservations({ propertyId: cabin.id }))[0]).toEqual({
        id: expect.stringMatching(/^rsv_[0-9A-Za-z]{20}$/), propertyId: cabin.id, calendarId: cabinCal.id, source: "vrbo",
        uid: "c1", kind: "booking", status: "active", start: day(30), end: day(31), summary: "Reserved", details: {},
        arrival: day(30), departure: day(31), eventZone: null, echoOf: null,
      });
    });

    it("gives ids that sort in creation order, so inserts append to the primary-key index", async () => {
      const store = await open();
      const first = (await store.createOwner("Ana")).id;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const second = (await store.createOwner("Ben")).id;
      expect(first < second).toBe(true);
      const ids = await Promise.all(Array.from({ length: 1000 }, async () => (await store.createOwner("x")).id));
      expect(new Set(ids).size).toBe(1000);
    });

    it("gives every record a prefixed id and an ISO-8601 UTC creation time", async () => {
      const store = await open();
      const { owner, property, calendar } = await loft(store);
      expect(owner.id).toMatch(/^own_[0-9A-Za-z]{20}$/);
      expect(property.id).toMatch(/^prp_[0-9A-Za-z]{20}$/);
      expect(calendar.id).toMatch(/^cal_[0-9A-Za-z]{20}$/);
      for (const at of [owner.createdAt, property.createdAt, calendar.createdAt]) {
        expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      }
    });
  });
});

describe("database path", () => {
  it("prefers --db, then CALSYNC_DB, then the user data directory", () => {
    expect(resolveDatabasePath("/x/flag.db", { CALSYNC_DB: "/x/env.db" })).toBe("/x/flag.db");
    expect(resolveDatabasePath(undefined, { CALSYNC_DB: "/x/env.db" })).toBe("/x/env.db");
    expect(resolveDatabasePath(undefined, { HOME: "/home/u", XDG_DATA_HOME: "/data" })).toBe(
      defaultDatabasePath({ HOME: "/home/u", XDG_DATA_HOME: "/data" }),
    );
  });

  it("follows each platform's data directory", () => {
    expect(defaultDatabasePath({ HOME: "/home/u", XDG_DATA_HOME: "/data" }, "linux")).toBe("/data/calsync/calsync.db");
    expect(defaultDatabasePath({ HOME: "/home/u" }, "linux")).toBe("/home/u/.local/share/calsync/calsync.db");
    expect(defaultDatabasePath({ HOME: "/home/u", XDG_DATA_HOME: "data" }, "linux")).toBe(
      "/home/u/.local/share/calsync/calsync.db",
    );
    expect(defaultDatabasePath({ HOME: "/Users/u" }, "darwin")).toBe(
      "/Users/u/Library/Application Support/calsync/calsync.db",
    );
    expect(defaultDatabasePath({ HOME: "/h", LOCALAPPDATA: "/lad" }, "win32")).toMatch(/^[\\/]lad[\\/]calsync[\\/]calsync\.db$/);
  });
});
