// Property-based (fast-check) over the real engine: syncOwner, a real SQLite file and the loopback feed server.
// Whatever goes wrong with one feed, its calendar keeps exactly what it had and the other calendar syncs normally.
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { openStore } from "../src/store/index.js";
import type { ReservationRow, Store } from "../src/store/types.js";
import type { CalendarSource, SyncErrorCode } from "../src/types.js";
import { startFeedServer, type FeedServer, type RouteSpec } from "./helpers/feed-server.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";

const MAX_BYTES = 100_000;
const TIMEOUT_MS = 500;

let feeds: FeedServer;
let refusedPort: string;
let dir: string;
let store: Store;

beforeAll(async () => {
  feeds = await startFeedServer();
  // A port nobody listens on any more: a redirect there is a refused connection.
  const gone = await startFeedServer();
  refusedPort = new URL(gone.baseUrl).port;
  await gone.close();
  dir = mkdtempSync(path.join(tmpdir(), "calsync-isolation-"));
  store = await openStore(path.join(dir, "calsync.db"));
});

afterAll(async () => {
  await store.close();
  await feeds.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Upcoming all-day stays (tomorrow or later), sometimes without UID; summaries that read as bookings or blocks. */
const eventArb: fc.Arbitrary<IcsEvent> = fc
  .record({
    uid: fc.option(fc.constantFrom("r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9"), { nil: undefined, freq: 6 }),
    offset: fc.integer({ min: 1, max: 300 }),
    nights: fc.integer({ min: 1, max: 14 }),
    summary: fc.constantFrom("Reserved", "Airbnb (Not available)", "Blocked", "Owner stay", "CLOSED - Not available", "Reserved - Jane Doe"),
  })
  .map(({ uid, offset, nights, summary }) => ({
    ...(uid === undefined ? {} : { uid }),
    start: day(offset),
    end: day(offset + nights),
    summary,
  }));
/** One identity per event, so the feed's distinct events are exactly what the test generated. */
const identity = (e: IcsEvent) => e.uid ?? `nouid|${e.start}|${e.end}|${e.summary}`;
const feedArb = (minLength: number) => fc.uniqueArray(eventArb, { minLength, maxLength: 8, selector: identity });
const sourceArb = fc.constantFrom<CalendarSource>("airbnb", "booking", "vrbo", "other");

type Failure = { name: string; spec: (stored: string) => RouteSpec; code: SyncErrorCode; httpStatus?: number };
const failures: Failure[] = [
  { name: "HTTP 503", spec: () => ({ status: 503, body: "busy" }), code: "http_error", httpStatus: 503 },
  { name: "HTTP 404", spec: () => ({ status: 404, body: "gone" }), code: "http_error", httpStatus: 404 },
  { name: "HTTP 500", spec: () => ({ status: 500, body: "oops" }), code: "http_error", httpStatus: 500 },
  {
    name: "HTML with 200",
    spec: () => ({ body: "<!doctype html><html><body>Maintenance</body></html>", headers: { "content-type": "text/html" } }),
    code: "not_icalendar",
  },
  { name: "empty body", spec: () => ({ body: "" }), code: "not_icalendar" },
  { name: "truncated calendar", spec: (ics) => ({ body: ics.slice(0, Math.max(20, Math.floor(ics.length / 2))) }), code: "not_icalendar" },
  { name: "dropped connection", spec: () => ({ destroy: true }), code: "fetch_failed" },
  { name: "connection cut mid-body", spec: (ics) => ({ body: ics, destroyAfterBytes: 40 }), code: "fetch_failed" },
  { name: "refused connection (via redirect)", spec: () => ({ redirectTo: `http://127.0.0.1:${refusedPort}/feed.ics` }), code: "fetch_failed" },
  { name: "body over the size cap", spec: () => ({ body: "BEGIN:VCALENDAR\r\n" + "X".repeat(MAX_BYTES + 10) }), code: "too_large" },
  { name: "server that never answers", spec: () => ({ hang: true }), code: "timeout" },
];

/** What people see of a reservation (CLI `reservations`), plus its row id to follow it across syncs. */
const visible = (r: ReservationRow) => ({ id: r.id, uid: r.uid, kind: r.kind, status: r.status, start: r.start, end: r.end, summary: r.summary });
const feedKey = (e: { start: string; end?: string; summary?: string }) => `${e.start}|${e.end}|${e.summary}`;

let run = 0;

describe("one failing feed never touches its calendar nor stops the other (fast-check, real engine)", () => {
  it("keeps the failed calendar's reservations exactly, reports it failed with zero counts, and syncs the healthy one consistently", async () => {
    await fc.assert(
      fc.asyncProperty(
        feedArb(1),
        feedArb(0),
        feedArb(0),
        fc.constantFrom(...failures),
        fc.integer({ min: 0, max: 1 }),
        sourceArb,
        sourceArb,
        async (failingFirst, healthyFirst, healthySecond, failure, failingIndex, failingSource, healthySource) => {
          // Booking.com's empty body is its empty calendar (CONTRACT §8), not a failure.
          fc.pre(!(failure.name === "empty body" && failingSource === "booking"));
          const n = ++run;
          const ownerId = (await store.createOwner(`Owner ${n}`)).id;
          // Results are ordered by property name, so the names decide which entry is which.
          const names = ["P0 Loft", "P1 Cottage"];
          const failingRoute = `/run-${n}-failing.ics`;
          const healthyRoute = `/run-${n}-healthy.ics`;
          const failingBody = buildIcs(failingFirst);
          feeds.setRoute(failingRoute, { body: failingBody });
          feeds.setRoute(healthyRoute, { body: buildIcs(healthyFirst) });
          const failingProperty = await store.createProperty(ownerId, names[failingIndex]!);
          const healthyProperty = await store.createProperty(ownerId, names[1 - failingIndex]!);
          const failingCalendar = await store.createCalendar({ propertyId: failingProperty.id, url: feeds.url(failingRoute), source: failingSource });
          const healthyCalendar = await store.createCalendar({ propertyId: healthyProperty.id, url: feeds.url(healthyRoute), source: healthySource });
          const rowsOf = async (calendarId: string) => (await store.listReservations({ ownerId })).filter((r) => r.calendarId === calendarId).map(visible);

          const first = await syncOwner({ store, ownerId, allowPrivateNetworks: true, timeoutMs: 5000 });
          expect(first.ok).toBe(true);
          expect(first.results.map((r) => r.result.reservationsFound)).toEqual(
            failingIndex === 0 ? [failingFirst.length, healthyFirst.length] : [healthyFirst.length, failingFirst.length],
          );
          const failingBefore = await rowsOf(failingCalendar.id);
          const healthyBefore = await rowsOf(healthyCalendar.id);
          expect(failingBefore).toHaveLength(failingFirst.length);

          feeds.setRoute(failingRoute, failure.spec(failingBody));
          feeds.setRoute(healthyRoute, { body: buildIcs(healthySecond) });
          // force: the healthy feed may drop every stay; this property is about isolation, not the guard.
          const second = await syncOwner({ store, ownerId, allowPrivateNetworks: true, force: true, timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES });

          expect(second).toMatchObject({ ok: false, failed: 1, syncedCalendars: 2, propertiesChecked: 2 });
          const failed = second.results[failingIndex]!;
          const healthy = second.results[1 - failingIndex]!;
          expect(failed.propertyId).toBe(failingProperty.id);
          expect(healthy.propertyId).toBe(healthyProperty.id);

          // The failed calendar: reported failed with zeros, its rows exactly as before, the error remembered.
          expect(failed.ok).toBe(false);
          expect(failed.result).toMatchObject({
            status: "failed", reservationsFound: 0, reservationsCreated: 0, reservationsUpdated: 0, reservationsCancelled: 0,
          });
          expect(failed.result.error?.code).toBe(failure.code);
          if (failure.httpStatus !== undefined) expect(failed.result.error?.httpStatus).toBe(failure.httpStatus);
          expect(await rowsOf(failingCalendar.id)).toEqual(failingBefore);
          expect(await store.getCalendar(failingCalendar.id)).toMatchObject({ lastStatus: "failed", lastErrorCode: failure.code });

          // The healthy calendar: success, and its counts are what changed in the store.
          expect(healthy.ok).toBe(true);
          expect(healthy.result.status).toBe("success");
          expect(healthy.result.error).toBeUndefined();
          const healthyAfter = await rowsOf(healthyCalendar.id);
          const active = healthyAfter.filter((r) => r.status === "active");
          // Every event of the new feed is an active row with its dates and summary (and UID when it has one).
          expect(active.map((r) => feedKey(r)).sort()).toEqual(healthySecond.map((e) => feedKey(e)).sort());
          for (const event of healthySecond) {
            if (event.uid !== undefined) expect(active.find((r) => r.uid === event.uid)).toMatchObject({ start: event.start, end: event.end, summary: event.summary });
          }
          const beforeById = new Map(healthyBefore.map((r) => [r.id, r]));
          const afterIds = new Set(active.map((r) => r.id));
          const created = active.filter((r) => beforeById.get(r.id)?.status !== "active").length;
          const updated = active.filter((r) => {
            const old = beforeById.get(r.id);
            return old?.status === "active" && (old.kind !== r.kind || old.start !== r.start || old.end !== r.end || old.summary !== r.summary);
          }).length;
          const cancelled = healthyBefore.filter((r) => r.status === "active" && !afterIds.has(r.id)).length;
          expect(healthyAfter.filter((r) => r.status === "cancelled" && beforeById.get(r.id)?.status === "active")).toHaveLength(cancelled);
          expect(healthyAfter).toHaveLength(new Set([...healthyBefore.map((r) => r.id), ...healthyAfter.map((r) => r.id)]).size);
          expect(healthy.result).toMatchObject({
            reservationsFound: healthySecond.length,
            reservationsCreated: created,
            reservationsUpdated: updated,
            reservationsCancelled: cancelled,
          });
          expect(await store.getCalendar(healthyCalendar.id)).toMatchObject({ lastStatus: "success", lastErrorCode: null });
        },
      ),
      { numRuns: 35 },
    );
  });
});
