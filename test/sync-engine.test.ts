// syncOwner end to end: a real SQLite file, a real loopback feed server, the whole engine.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { syncOwner, type SyncOwnerOptions } from "../src/engine/sync.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";

let feeds: FeedServer;
let dir: string;
let store: Store;
let ownerId: string;

beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => {
  await feeds.close();
});
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "calsync-engine-"));
  store = await openStore(join(dir, "calsync.db"));
  ownerId = (await store.createOwner("Ana")).id;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

let nextPath = 0;
/** A calendar on a fresh feed path; returns the path so the test can change what it serves. */
async function addCalendar(propertyName = "Sea View Loft"): Promise<{ path: string; calendarId: string }> {
  const property = (await store.listProperties(ownerId)).find((p) => p.name === propertyName) ?? (await store.createProperty(ownerId, propertyName));
  const path = `/feed-${++nextPath}.ics`;
  const calendar = await store.createCalendar({ propertyId: property.id, url: feeds.url(path), source: "airbnb" });
  return { path, calendarId: calendar.id };
}

const sync = (extra: Partial<SyncOwnerOptions> = {}) =>
  syncOwner({ store, ownerId, allowPrivateNetworks: true, timeoutMs: 2000, ...extra });
const counts = (response: Awaited<ReturnType<typeof sync>>, index = 0) => {
  const { reservationsFound: f, reservationsCreated: c, reservationsUpdated: u, reservationsCancelled: x } =
    response.results[index]!.result;
  return [f, c, u, x];
};
const stay = (uid: string, from: number, to: number) => ({ uid, start: day(from), end: day(to), summary: "Reserved" });

describe("syncOwner across several syncs", () => {
  it("reports exact counts as a feed gains, moves, loses and cancels reservations", async () => {
    const { path } = await addCalendar();
    const serve = (...events: Parameters<typeof buildIcs>[0]) => feeds.setRoute(path, { body: buildIcs(events) });

    serve(stay("a", 3, 6), stay("b", 10, 12), stay("past", -10, -7));
    expect(counts(await sync())).toEqual([3, 3, 0, 0]);

    serve(stay("a", 3, 6), stay("b", 10, 12), stay("past", -10, -7));
    expect(counts(await sync())).toEqual([3, 0, 0, 0]);

    // b moves, c arrives, the past stay drops off the feed (kept, not cancelled).
    serve(stay("a", 3, 6), stay("b", 11, 13), stay("c", 20, 22));
    expect(counts(await sync())).toEqual([3, 1, 1, 0]);

    // a is cancelled explicitly, c disappears.
    serve({ ...stay("a", 3, 6), status: "CANCELLED" }, stay("b", 11, 13));
    expect(counts(await sync())).toEqual([1, 0, 0, 2]);

    // a comes back: created again.
    serve(stay("a", 3, 6), stay("b", 11, 13));
    expect(counts(await sync())).toEqual([2, 1, 0, 0]);

    const rows = await store.listReservations();
    expect(rows.map((r) => [r.uid, r.status])).toEqual([
      ["past", "active"],
      ["a", "active"],
      ["b", "active"],
      ["c", "cancelled"],
    ]);
    expect(rows.find((r) => r.uid === "b")).toMatchObject({ start: day(11), end: day(13) });
    expect(await store.listSyncRuns({ ownerId })).toHaveLength(5);
  });

  it("answers a 304 with the stored counts and no changes, sending the stored ETag", async () => {
    const { path } = await addCalendar();
    feeds.setRoute(path, { body: buildIcs([stay("a", 3, 6), stay("b", 8, 9)]), etag: '"v1"' });
    expect(counts(await sync())).toEqual([2, 2, 0, 0]);
    const response = await sync();
    expect(counts(response)).toEqual([2, 0, 0, 0]);
    expect(response.results[0]!.ok).toBe(true);
    expect(feeds.requests.at(-1)?.headers["if-none-match"]).toBe('"v1"');
  });

  it("parses an unchanged body again on a later day, so recurring events roll forward", async () => {
    const { path } = await addCalendar();
    const weekly = [
      "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", "BEGIN:VEVENT", "UID:weekly-block",
      `DTSTART;VALUE=DATE:${day(1).replaceAll("-", "")}`, `DTEND;VALUE=DATE:${day(2).replaceAll("-", "")}`,
      "RRULE:FREQ=WEEKLY", "SUMMARY:Blocked", "END:VEVENT", "END:VCALENDAR", "",
    ].join("\r\n");
    feeds.setRoute(path, { body: weekly });
    const [found] = counts(await sync());
    expect(counts(await sync())).toEqual([found, 0, 0, 0]);
    const later = new Date(Date.now() + 8 * 86_400_000);
    const [, created] = counts(await sync({ now: () => later }));
    expect(created).toBeGreaterThan(0);
  });

  it("applies a dry run to nothing", async () => {
    const { path } = await addCalendar();
    feeds.setRoute(path, { body: buildIcs([stay("a", 3, 6)]) });
    expect(counts(await sync({ dryRun: true }))).toEqual([1, 1, 0, 0]);
    expect(await store.listReservations()).toEqual([]);
    expect(await store.listSyncRuns({ ownerId })).toEqual([]);
  });
});

describe("a broken feed fails its own calendar and writes nothing", () => {
  const cases: Array<[string, Parameters<FeedServer["setRoute"]>[1], string]> = [
    ["an HTML page with status 200", { body: "<!doctype html><html><body>Maintenance</body></html>", headers: { "content-type": "text/html" } }, "not_icalendar"],
    ["a 404", { status: 404, body: "not found" }, "http_error"],
    ["a 503", { status: 503, body: "busy" }, "http_error"],
    ["an empty body", { body: "" }, "not_icalendar"],
    ["a truncated calendar", { body: buildIcs([stay("x", 3, 4)]).slice(0, 120) }, "not_icalendar"],
    ["a body over the size cap", { body: gzipSync(Buffer.alloc(300_000, 65)), headers: { "content-encoding": "gzip" } }, "too_large"],
    ["a server that never answers", { hang: true }, "timeout"],
    ["a dropped connection", { destroy: true }, "fetch_failed"],
  ];

  for (const [what, spec, code] of cases) {
    it(`reports ${code} for ${what}, keeps the stored stays and syncs the other calendar`, async () => {
      const broken = await addCalendar();
      const healthy = await addCalendar();
      feeds.setRoute(broken.path, { body: buildIcs([stay("keep-1", 3, 6), stay("keep-2", 9, 11)]) });
      feeds.setRoute(healthy.path, { body: buildIcs([stay("h", 4, 5)]) });
      await sync();
      const before = await store.listReservations();

      feeds.setRoute(broken.path, spec);
      feeds.setRoute(healthy.path, { body: buildIcs([stay("h", 4, 5), stay("h2", 7, 8)]) });
      const response = await sync({ timeoutMs: 500, maxBytes: 100_000 });

      expect(response).toMatchObject({ ok: false, failed: 1, syncedCalendars: 2 });
      const entry = response.results[0]!;
      expect(entry.ok).toBe(false);
      expect(entry.result).toMatchObject({
        status: "failed", reservationsFound: 0, reservationsCreated: 0, reservationsUpdated: 0, reservationsCancelled: 0,
      });
      expect(entry.result.error?.code).toBe(code);
      if (code === "http_error") expect(entry.result.error?.httpStatus).toBe(spec && "status" in spec ? spec.status : undefined);
      expect(counts(response, 1)).toEqual([2, 1, 0, 0]);
      const after = await store.listReservations({ status: "active" });
      expect(after.filter((r) => r.calendarId === broken.calendarId)).toEqual(
        before.filter((r) => r.calendarId === broken.calendarId),
      );
      expect((await store.getCalendar(broken.calendarId))?.lastErrorCode).toBe(code);
    });
  }

  it("reports fetch_failed for a refused connection", async () => {
    const gone = await startFeedServer();
    const url = gone.url("/x.ics");
    await gone.close();
    const property = await store.createProperty(ownerId, "Loft");
    await store.createCalendar({ propertyId: property.id, url, source: "other" });
    const response = await sync();
    expect(response.results[0]?.result.error?.code).toBe("fetch_failed");
  });

  it("refuses to empty a calendar (suspicious_feed) until forced", async () => {
    const { path, calendarId } = await addCalendar();
    feeds.setRoute(path, { body: buildIcs([stay("a", 3, 6), stay("b", 8, 9), stay("c", 12, 14)]) });
    await sync();
    feeds.setRoute(path, { body: buildIcs([]) });
    const refused = await sync();
    expect(refused.results[0]?.result.error?.code).toBe("suspicious_feed");
    expect(await store.listReservations({ status: "active" })).toHaveLength(3);
    const forced = await sync({ force: true });
    expect(counts(forced)).toEqual([0, 0, 0, 3]);
    expect((await store.getCalendar(calendarId))?.lastStatus).toBe("success");
  });
});
