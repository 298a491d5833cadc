// Re-issued UIDs (CONTRACT §8): some channels give a booking a new UID when it is edited. A UID that
// leaves the feed while a new one with exactly the same arrival, departure and kind arrives in the
// same fetch is one update of the same reservation; anything less exact stays cancel + create.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffReservations } from "../src/engine/diff.js";
import type { StoredReservation } from "../src/engine/model.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import { applyDiff } from "./helpers/apply-diff.js";
import { runCli } from "./helpers/cli.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";
import { storeKinds } from "./helpers/stores.js";

const now = new Date();

/** One calendar synced again and again, the store simulated. */
function calendar() {
  let stored: StoredReservation[] = [];
  return {
    get stored() {
      return stored;
    },
    sync(events: IcsEvent[]) {
      const parsed = parseFeed(buildIcs(events), { source: "vrbo", now });
      if (!parsed.ok) throw new Error(parsed.error.message);
      const diff = diffReservations(stored, parsed.events, { now });
      stored = applyDiff(stored, diff);
      return diff.counts;
    },
  };
}

const keep = { uid: "keep", start: day(40), end: day(44), summary: "Reserved - Keep" };
const keep2 = { uid: "keep-2", start: day(50), end: day(54), summary: "Reserved - Keep" };

describe("a booking under a new UID", () => {
  it("with the same arrival, departure and kind is one update: the row takes the new UID", () => {
    const cal = calendar();
    cal.sync([keep, { uid: "old", start: day(10), end: day(13), summary: "Reserved - Ann" }]);
    const id = cal.stored.find((r) => r.uid === "old")!.id;
    expect(cal.sync([keep, { uid: "new", start: day(10), end: day(13), summary: "Reserved - Ann" }])).toEqual({
      found: 2, created: 0, updated: 1, cancelled: 0,
    });
    expect(cal.stored.filter((r) => r.status === "active").map((r) => [r.id === id, r.uid])).toContainEqual([true, "new"]);
    expect(cal.stored).toHaveLength(2);
    expect(cal.sync([keep, { uid: "new", start: day(10), end: day(13), summary: "Reserved - Ann" }])).toEqual({
      found: 2, created: 0, updated: 0, cancelled: 0,
    });
  });

  it("matches by nights, not instants: a timed stay re-issued with another check-in hour on the same dates", () => {
    const wall = (offset: number, time: string) => `${day(offset).replaceAll("-", "")}T${time}`;
    const feed = (uid: string, checkIn: string) =>
      buildIcs([keep, keep2]).replace(
        "END:VCALENDAR",
        ["BEGIN:VEVENT", `UID:${uid}`, `DTSTART;TZID=America/Los_Angeles:${wall(10, checkIn)}`,
         `DTEND;TZID=America/Los_Angeles:${wall(13, "100000")}`, "SUMMARY:Reserved - Ann", "END:VEVENT", "END:VCALENDAR"].join("\r\n"),
      );
    const diff = (stored: StoredReservation[], text: string) => {
      const parsed = parseFeed(text, { source: "vrbo", now });
      if (!parsed.ok) throw new Error(parsed.error.message);
      return diffReservations(stored, parsed.events, { now, timeZone: "America/Los_Angeles" });
    };
    const stored = applyDiff([], diff([], feed("old", "160000")));
    const again = diff(stored, feed("new", "150000"));
    expect(again.counts).toEqual({ found: 3, created: 0, updated: 1, cancelled: 0 });
    expect(again.updates.map((u) => [u.event.uid, u.event.arrival, u.event.departure])).toEqual([["new", day(10), day(13)]]);
  });

  it("with different nights is a cancellation and a creation", () => {
    const cal = calendar();
    cal.sync([keep, keep2, { uid: "old", start: day(10), end: day(13), summary: "Reserved - Ann" }]);
    expect(cal.sync([keep, keep2, { uid: "new", start: day(10), end: day(14), summary: "Reserved - Ann" }])).toEqual({
      found: 3, created: 1, updated: 0, cancelled: 1,
    });
  });

  it("of another kind is a cancellation and a creation", () => {
    const cal = calendar();
    cal.sync([keep, keep2, { uid: "old", start: day(10), end: day(13), summary: "Reserved - Ann" }]);
    expect(cal.sync([keep, keep2, { uid: "new", start: day(10), end: day(13), summary: "Blocked" }])).toEqual({
      found: 3, created: 1, updated: 0, cancelled: 1,
    });
  });

  it("pairs only one to one: two vanished bookings with the same nights and one new UID stay cancel + create", () => {
    const cal = calendar();
    const twin = (uid: string) => ({ uid, start: day(10), end: day(13), summary: `Reserved - ${uid}` });
    cal.sync([keep, keep2, twin("a"), twin("b")]);
    expect(cal.sync([keep, keep2, twin("c")])).toEqual({ found: 3, created: 1, updated: 0, cancelled: 2 });
  });

  it("pairs only one to one: one vanished booking and two new UIDs with its nights stay cancel + create", () => {
    const cal = calendar();
    const twin = (uid: string) => ({ uid, start: day(10), end: day(13), summary: `Reserved - ${uid}` });
    cal.sync([keep, keep2, twin("a")]);
    expect(cal.sync([keep, keep2, twin("b"), twin("c")])).toEqual({ found: 4, created: 2, updated: 0, cancelled: 1 });
  });

  it("still counts a block under a new UID with the same nights as no change (Airbnb's daily window)", () => {
    const cal = calendar();
    const block = (uid: string) => ({ uid, start: day(180), end: day(365), summary: "Blocked" });
    cal.sync([keep, block("w1")]);
    expect(cal.sync([keep, block("w2")])).toEqual({ found: 2, created: 0, updated: 0, cancelled: 0 });
    expect(cal.stored.map((r) => r.uid).sort()).toEqual(["keep", "w2"]);
  });
});

// On both stores: the row keeps its id and takes the new UID, under UNIQUE (calendar, UID).
describe.each(storeKinds())("re-issued UIDs through calsync sync --local ($name store)", (kind) => {
  let feeds: FeedServer;
  beforeAll(async () => {
    feeds = await startFeedServer();
  });
  afterAll(async () => {
    await feeds.close();
    await kind.dispose();
  });

  it("reports 0 cancelled, 1 updated for the same dates; 1 cancelled, 1 created for other dates; only within one calendar", async () => {
    const db = await kind.create();
    const cli = (...argv: string[]) => runCli([...argv, "--db", db], { env: { CALSYNC_ALLOW_PRIVATE_NETWORKS: "1" } });
    await cli("owner", "add", "Ann");
    const property = JSON.parse((await cli("property", "add", "Loft", "--json")).stdout);
    const vrbo = feeds.url("/reissue/vrbo.ics", { body: buildIcs([keep, keep2, { uid: "v1", start: day(10), end: day(13), summary: "Reserved - Ann" }]) });
    const other = feeds.url("/reissue/other.ics", { body: buildIcs([]) });
    for (const [url, source] of [[vrbo, "vrbo"], [other, "other"]]) await cli("calendar", "add", "--property", property.id, "--url", url!, "--source", source!);
    const sync = async () => {
      const result = await cli("sync", "--local", "--json");
      return JSON.parse(result.stdout).results.map((entry: { source: string; result: Record<string, unknown> }) => [
        entry.source, entry.result.reservationsCreated, entry.result.reservationsUpdated, entry.result.reservationsCancelled,
      ]);
    };
    expect(await sync()).toEqual([["vrbo", 3, 0, 0], ["other", 0, 0, 0]]);
    const before = JSON.parse((await cli("reservations", "--json")).stdout).find((r: { uid: string }) => r.uid === "v1");

    feeds.setRoute("/reissue/vrbo.ics", { body: buildIcs([keep, keep2, { uid: "v2", start: day(10), end: day(13), summary: "Reserved - Ann" }]) });
    expect(await sync()).toEqual([["vrbo", 0, 1, 0], ["other", 0, 0, 0]]);
    const rows = JSON.parse((await cli("reservations", "--json")).stdout) as Array<{ id: string; uid: string; status: string }>;
    expect(rows.find((r) => r.uid === "v2")).toMatchObject({ id: before.id, status: "active", arrival: day(10), departure: day(13) });
    expect(rows).toHaveLength(3);

    feeds.setRoute("/reissue/vrbo.ics", { body: buildIcs([keep, keep2, { uid: "v3", start: day(11), end: day(13), summary: "Reserved - Ann" }]) });
    expect(await sync()).toEqual([["vrbo", 1, 0, 1], ["other", 0, 0, 0]]);

    // The same nights leaving one calendar and arriving on another are two reservations, not one moved.
    feeds.setRoute("/reissue/vrbo.ics", { body: buildIcs([keep, keep2]) });
    feeds.setRoute("/reissue/other.ics", { body: buildIcs([{ uid: "o1", start: day(11), end: day(13), summary: "Reserved - Ann" }]) });
    expect(await sync()).toEqual([["vrbo", 0, 0, 1], ["other", 1, 0, 0]]);
  });
});
