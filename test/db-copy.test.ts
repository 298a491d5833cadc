// `calsync db copy` (CONTRACT §10): SQLite → PostgreSQL and back with every id, token, feed token and the
// history; after a copy both stores answer every read with the same records in the same order.
import { existsSync } from "node:fs";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { COPY_TABLES, TRANSIENT_TABLES } from "../src/store/copy.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import type { CalendarWrite, DatedEvent } from "../src/engine/model.js";
import { datedEvent } from "../src/engine/nights.js";
import { runCli, tempDir } from "./helpers/cli.js";
import { day } from "./helpers/ics.js";
import { postgresKind, sqliteKind } from "./helpers/stores.js";

const tmp = tempDir();
const pg = postgresKind();
const stores: Store[] = [];
const open = async (location: string) => {
  const store = await openStore(location);
  stores.push(store);
  return store;
};
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});
afterAll(async () => {
  await pg.dispose();
  tmp.remove();
});

const event = (uid: string, from: number, details = {}): DatedEvent => datedEvent({
  uid, kind: "booking", start: day(from), end: day(from + 3), summary: `Stay ${uid}`, cancelled: false, details, raw: { UID: uid, SUMMARY: "x" },
});
// 16:00 in Los Angeles to 10:00 three days later: nights that depend on the zone they are read in.
const timed = (uid: string, from: number, zone: string | null): DatedEvent => datedEvent({
  uid, kind: "booking", start: `${day(from)}T23:00:00Z`, end: `${day(from + 3)}T17:00:00Z`, summary: `Stay ${uid}`,
  cancelled: false, details: {}, raw: { UID: uid }, zone: "America/Los_Angeles",
}, zone);
const HOUR = 3_600_000;
const write = (calendarId: string, parts: Partial<CalendarWrite>): CalendarWrite => ({
  calendarId, inserts: [], updates: [], cancels: [], syncedAt: new Date(),
  feed: { etag: '"e1"', lastModified: "Tue, 01 Dec 2026 10:00:00 GMT", contentHash: "h1", lastFound: 1 }, ...parts,
});

/** A database with something of everything: names that sort differently by locale, tokens, history, feed tokens. */
async function seed(store: Store): Promise<void> {
  const ana = await store.createOwner("Ana", { email: "ana@example.com" });
  const ben = await store.createOwner("Ben");
  await store.setOwnerPassword(ana.id, "scrypt$ana");
  await store.createInvite({ ownerId: ana.id, hash: "a".repeat(64), expiresAt: new Date(Date.now() + 72 * HOUR) });
  await store.consumeInvite("a".repeat(64), new Date());
  await store.createInvite({ ownerId: ben.id, hash: "b".repeat(64), expiresAt: new Date(Date.now() + 72 * HOUR) });
  await store.createSession({ ownerId: ana.id, hash: "s".repeat(64), at: new Date(Date.now() - HOUR) });
  const since = new Date(Date.now() - 15 * 60_000);
  await store.reserveSignInAttempt({ keys: ["email:ben@example.com", "ip:127.0.0.1"], at: new Date(Date.now() - 60_000), since, limit: 10 });
  await store.reserveSignInAttempt({ keys: ["ip:127.0.0.1"], at: new Date(), since, limit: 10 });
  for (const [i, owner] of [ana, ben].entries()) {
    await store.createToken({ ownerId: owner.id, name: "ci", prefix: `cs_${i}`, hash: String(i).repeat(64), expiresAt: new Date(Date.now() + 86_400_000) });
  }
  await store.revokeToken((await store.listTokens(ben.id))[0]!.id);
  const names = ["Zebra", "éclair", "Élan", "alpha", "Beach", "beach", "_x", "Äpfel"];
  for (const [i, name] of names.entries()) {
    const property = await store.createProperty(i % 2 ? ben.id : ana.id, name, i % 3 ? "Pacific/Auckland" : null);
    if (i === 0) await store.propertyFeedToken(property.id);
    const calendar = await store.createCalendar({ propertyId: property.id, url: `https://h.example/${i}.ics?s=secret`, source: "airbnb" });
    const second = await store.createCalendar({ propertyId: property.id, url: `https://b.example/${i}.ics`, source: "booking" });
    await store.applyCalendarSync(write(calendar.id, { inserts: [event(`u${i}a`, 10 + i, { guestName: "Jo", reservationCode: "HM1" }), event(`u${i}b`, 30), timed(`u${i}c`, 40, property.timeZone)] }));
    const [first] = await store.calendarReservations(calendar.id);
    await store.applyCalendarSync(write(calendar.id, { cancels: [first!.id] }));
    await store.recordCalendarFailure({ calendarId: second.id, error: { code: "http_error", message: "feed answered HTTP 503", httpStatus: 503 }, failedAt: new Date() });
    await store.recordSyncRun({
      ownerId: i % 2 ? ben.id : ana.id, trigger: "api", dryRun: false, startedAt: new Date(), calendarIds: [calendar.id, second.id],
      response: { ok: false, syncedCalendars: 2, propertiesChecked: 1, failed: 1, durationMs: 12 + i, results: [] },
    });
    if (i === 2) await store.recordCalendarFailure({ calendarId: second.id, error: { code: "timeout", message: "slow" }, failedAt: new Date() });
    if (i === 3) await store.removeCalendar(second.id); // history rows left unlinked
  }
  // Webhooks: an outbox with one delivery made, one waiting for its retry and one not tried yet, and an
  // announced double booking; and the echo fetch log of a property.
  const secret = "whsec_c2VjcmV0c2VjcmV0c2VjcmV0";
  const hook = await store.createWebhookEndpoint({ ownerId: ana.id, url: "https://hooks.example/a?k=1", events: ["*"], secret });
  await store.createWebhookEndpoint({ ownerId: ana.id, url: "https://hooks.example/b", events: ["reservation.created"], secret });
  const response = { ok: true, syncedCalendars: 0, propertiesChecked: 0, failed: 0, durationMs: 3, results: [] };
  const completed = { type: "sync.completed" as const, timestamp: new Date().toISOString(), data: response };
  await store.recordSyncRun({
    ownerId: ana.id, trigger: "schedule", dryRun: false, startedAt: new Date(), calendarIds: [], response,
    events: [completed, completed, completed], conflicts: [{ key: "prp_1 rsv_a rsv_b", event: completed }],
  });
  const now = new Date(Date.now() + 1000);
  for (const delivered of [true, false]) {
    const [claimed] = await store.claimWebhookDeliveries({ worker: "w", now, until: new Date(now.getTime() + 40_000), limit: 1 });
    expect(claimed!.endpointId).toBe(hook.id);
    await store.finishWebhookDelivery({
      eventId: claimed!.eventId, endpointId: hook.id, worker: "w", at: now, delivered, status: delivered ? 204 : 500,
      error: delivered ? null : "receiver answered HTTP 500", nextAttemptAt: delivered ? null : new Date(now.getTime() + 30_000),
    });
  }
  const [loft] = await store.listProperties(ana.id);
  const served = [{ reservationId: "rsv_x", arrival: day(10), departure: day(12) }];
  await store.recordOutboundFetch({ propertyId: loft!.id, exclude: ["booking", "vrbo"], etag: '"f1"', nights: served, at: new Date(now.getTime() - HOUR) });
  await store.recordOutboundFetch({ propertyId: loft!.id, exclude: ["booking", "vrbo"], etag: '"f1"', nights: served, at: now });
  await store.recordOutboundFetch({ propertyId: loft!.id, exclude: [], etag: '"f2"', nights: [], at: now });
}

/** Everything the store answers, as one string: equal strings mean equal records in equal order. */
async function snapshot(store: Store): Promise<string> {
  const owners = await store.listOwners();
  const properties = await store.listProperties();
  const runs = await store.listSyncRuns();
  return JSON.stringify({
    owners,
    passwords: await Promise.all(owners.map((o) => store.ownerPasswordHash(o.id))),
    byEmail: await store.findOwnerByEmail("ana@example.com"),
    invites: [await store.findInvite("a".repeat(64), new Date()), await store.findInvite("b".repeat(64), new Date())],
    session: await store.findSession("s".repeat(64)),
    failures: await store.signInFailures("ip:127.0.0.1", new Date(Date.now() - HOUR)),
    tokens: await store.listTokens(),
    byHash: await store.findTokenByHash("0".repeat(64)),
    properties,
    calendars: await store.listCalendars(),
    reservations: await store.listReservations(),
    cancelled: await store.listReservations({ status: "cancelled" }),
    perOwner: await Promise.all(owners.map((o) => store.ownerCalendars(o.id))),
    feeds: await Promise.all(properties.map((p) => store.propertyFeedReservations(p.id))),
    byFeedToken: await store.getPropertyByFeedToken(properties.find((p) => p.feedToken)!.feedToken!),
    bookings: await Promise.all(properties.map((p) => store.propertyActiveBookings(p.id))),
    runs,
    responses: await Promise.all(runs.map((r) => store.syncRunResponse(r.id))),
    webhooks: await store.listWebhookEndpoints(),
    deliveries: await store.listWebhookDeliveries(),
    pending: await store.countPendingWebhookDeliveries(),
    fetchLog: await Promise.all(properties.map((p) => store.propertyOutboundFetches(p.id))),
  });
}

describe("calsync db copy", () => {
  it("copies SQLite to PostgreSQL and back with every id and row; both then answer every read alike", async () => {
    const source = tmp.db("source");
    await seed(await open(source));
    const target = await pg.create();

    const there = await runCli(["db", "copy", "--from", source, "--to", target, "--json"]);
    expect(there.code, there.stderr).toBe(0);
    const report = JSON.parse(there.stdout) as { from: string; to: string; tables: Record<string, number>; total: number };
    const counts = await (await open(source)).countRows(COPY_TABLES);
    expect(report.tables).toEqual(counts);
    expect(report.total).toBe(Object.values(counts).reduce((a, b) => a + b, 0));
    expect(report.to).not.toContain(new URL(target).password);
    expect(await snapshot(await open(target))).toBe(await snapshot(await open(source)));

    const back = tmp.db("back");
    const home = await runCli(["db", "copy", "--from", target, "--to", back]);
    expect(home.code, home.stderr).toBe(0);
    const sqlite = sqliteKind();
    for (const table of COPY_TABLES) {
      const rows = (location: string) => sqlite.query(location, `SELECT * FROM ${table} ORDER BY rowid`);
      expect(await rows(back), table).toEqual(await rows(source));
    }

    // New rows after a copy come after the copied ones, in both.
    const [pgStore, sqliteStore] = [await open(target), await open(back)];
    for (const store of [pgStore, sqliteStore]) {
      const property = (await store.listProperties())[0]!;
      await store.createCalendar({ propertyId: property.id, url: "https://new.example/n.ics", source: "vrbo" });
    }
    const urls = async (store: Store) => (await store.listCalendars()).map((c) => c.url);
    expect(await urls(pgStore)).toEqual(await urls(sqliteStore));
    expect((await urls(pgStore)).indexOf("https://new.example/n.ics")).toBe(2);
  });

  it("copies SQLite text holding NUL into PostgreSQL, which cannot store it, without failing the copy", async () => {
    const source = tmp.db();
    const store = await open(source);
    const owner = await store.createOwner("Ana");
    const property = await store.createProperty(owner.id, "Loft");
    const calendar = await store.createCalendar({ propertyId: property.id, url: "https://h.example/1.ics", source: "airbnb" });
    // What a feed with a NUL byte left in SQLite before parseFeed dropped them.
    await store.applyCalendarSync(write(calendar.id, { inserts: [event("u\0a", 10, { guestName: "J\0o" })] }));
    const target = await pg.create();
    const result = await runCli(["db", "copy", "--from", source, "--to", target, "--json"]);
    expect([result.code, result.stderr]).toEqual([0, ""]);
    const [copied] = await (await open(target)).listReservations();
    expect(copied).toMatchObject({ uid: "u\uFFFDa", summary: "Stay u\uFFFDa" });
  });

  it("prints the rows copied per table", async () => {
    const source = tmp.db();
    await seed(await open(source));
    const result = await runCli(["db", "copy", "--from", source, "--to", tmp.db()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^TABLE\s+ROWS\nowners\s+2\napi_tokens\s+2\nproperties\s+8\ncalendars\s+15\n/);
    expect(result.stdout).toMatch(/\nCopied \d+ rows from \S+\.db to \S+\.db\.\n$/);
  });

  it("refuses a target that holds any row, with a clear error and exit 1, writing nothing", async () => {
    const source = tmp.db();
    await seed(await open(source));
    const target = await pg.create();
    const filled = await open(target);
    await filled.createOwner("Already here");
    const before = await filled.countRows(COPY_TABLES);

    const result = await runCli(["db", "copy", "--from", source, "--to", target]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "error: the target database is not empty (owners: 1); db copy only writes into an empty database\n",
    );
    expect(await filled.countRows(COPY_TABLES)).toEqual(before);

    const sqliteTarget = tmp.db();
    await (await open(sqliteTarget)).createOwner("Here too");
    const again = await runCli(["db", "copy", "--from", target, "--to", sqliteTarget]);
    expect([again.code, again.stderr]).toEqual([1, "error: the target database is not empty (owners: 1); db copy only writes into an empty database\n"]);
    expect((await (await open(sqliteTarget)).listOwners()).map((o) => o.name)).toEqual(["Here too"]);
  });

  it("says so when the source does not exist, creating nothing", async () => {
    const missing = tmp.db("missing");
    const result = await runCli(["db", "copy", "--from", missing, "--to", tmp.db()]);
    expect([result.code, result.stderr]).toEqual([1, `error: no database at ${missing}\n`]);
    expect(existsSync(missing)).toBe(false);
    expect((await runCli(["db", "copy", "--from", missing])).code).toBe(2);
  });

  it("knows every table of both schemas: each is copied or deliberately left out", async () => {
    for (const location of [tmp.db(), await pg.create()]) {
      const names = await (await open(location)).tableNames();
      expect(names.sort()).toEqual([...COPY_TABLES, ...TRANSIENT_TABLES].sort());
    }
  });
});
