// Echoes end to end (issue 18, CONTRACT §8): the built `calsync serve` as a child process serves the outbound
// feed to "Booking.com" (this test, fetching `?exclude=booking`), which then exports those nights as
// "CLOSED - Not available"; `calsync sync --local` on the same database must take that for an echo of the
// Airbnb stay, not for a double booking, while the same event seen before the fetch stays one.
import type { ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";
import { startServe } from "./helpers/processes.js";

const { tmp, feeds } = useCliFixtures({ built: true });
const children: ChildProcess[] = [];
let count = 0;

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts `calsync serve --db DB` and resolves with its URL and a stop() that waits for a clean exit. */
async function serve(db: string) {
  const server = await startServe(["--db", db]);
  children.push(server.child);
  return {
    url: server.url,
    async stop() {
      await server.stop();
      expect(await server.exited).toBe(0);
    },
  };
}

const stay = (uid: string, from: number, to: number, summary = "Reserved"): IcsEvent => ({ uid, start: day(from), end: day(to), summary });
const closed = (uid: string, from: number, to: number) => stay(uid, from, to, "CLOSED - Not available");

/** Owner Ann's "Sea View Loft" with an Airbnb and a Booking.com calendar whose feeds the test rewrites at will. */
async function loft(airbnb: IcsEvent[], booking: IcsEvent[]) {
  const db = tmp.db();
  const base = `/echoes/${++count}`;
  const setFeed = (source: string, events: IcsEvent[]) => feeds.route(`${base}/${source}.ics`, { body: buildIcs(events) });
  setFeed("airbnb", airbnb);
  setFeed("booking", booking);
  await runCli(["owner", "add", "Ann", "--db", db]);
  const property = JSON.parse((await runCli(["property", "add", "Sea View Loft", "--json", "--db", db])).stdout) as { id: string };
  for (const source of ["airbnb", "booking"]) {
    const added = await runCli(["calendar", "add", "--property", property.id, "--url", feeds.url(`${base}/${source}.ics`), "--source", source, "--db", db]);
    expect(added.code, added.stderr).toBe(0);
  }
  const feed = JSON.parse((await runCli(["property", "feed", property.id, "--json", "--db", db])).stdout) as { url: string };
  const server = await serve(db);
  return {
    db,
    server,
    airbnb: (events: IcsEvent[]) => setFeed("airbnb", events),
    booking: (events: IcsEvent[]) => setFeed("booking", events),
    /** What a channel importing `…/ical/<token>.ics?exclude=<source>` gets, through `calsync serve`. */
    async fetchFeed(exclude: string): Promise<string> {
      const res = await fetch(`${feed.url.replace("http://localhost:8787", server.url)}?exclude=${exclude}`);
      expect(res.status).toBe(200);
      return res.text();
    },
    async sync() {
      const result = await runCli(["sync", "--local", "--allow-private-networks", "--json", "--db", db]);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as { conflicts?: unknown[]; results: Array<{ source: string; result: Record<string, number> }> };
    },
    async reservations(source: string) {
      const rows = JSON.parse((await runCli(["reservations", "--json", "--db", db])).stdout) as Array<Record<string, unknown>>;
      return rows.filter((r) => r.source === source);
    },
  };
}

const counts = (response: { results: Array<{ source: string; result: Record<string, number> }> }, source: string) => {
  const { reservationsFound, reservationsCreated, reservationsUpdated, reservationsCancelled } = response.results.find((r) => r.source === source)!.result;
  return { found: reservationsFound, created: reservationsCreated, updated: reservationsUpdated, cancelled: reservationsCancelled };
};
const allDay = (from: number) => `DTSTART;VALUE=DATE:${day(from).replaceAll("-", "")}`;

describe("Booking.com re-exporting an Airbnb stay it imported from calsync", () => {
  it("is an echo: a block with echoOf, no double booking, and not sent back to Airbnb", async () => {
    // Booking.com's own sale b0 keeps its feed from ever being empty.
    const home = await loft([stay("a1", 10, 15)], [closed("b0", 40, 42)]);
    try {
      expect((await home.sync()).conflicts).toBeUndefined();
      const [airbnbStay] = await home.reservations("airbnb");
      expect(await home.fetchFeed("booking")).toContain(allDay(10));
      home.booking([closed("b0", 40, 42), closed("b-echo", 10, 15)]);

      const response = await home.sync();
      expect(response.conflicts).toBeUndefined();
      expect(counts(response, "booking")).toEqual({ found: 2, created: 1, updated: 0, cancelled: 0 });
      expect(await home.reservations("booking")).toMatchObject([
        { uid: "b-echo", kind: "block", status: "active", arrival: day(10), departure: day(15), echoOf: airbnbStay!.id },
        { uid: "b0", kind: "booking", echoOf: null },
      ]);
      expect(JSON.parse((await runCli(["conflicts", "--json", "--db", home.db])).stdout)).toEqual([]);
      const table = (await runCli(["reservations", "--db", home.db])).stdout;
      expect(table).toMatch(new RegExp(`booking\\s+block\\s+active\\s+${day(10)}\\s+${day(15)}\\s+CLOSED - Not available \\(echo of ${airbnbStay!.id}\\)`));
      // Airbnb's URL must not carry its own stay back through Booking.com's echo; Booking.com's own sale it does.
      const toAirbnb = await home.fetchFeed("airbnb");
      expect(toAirbnb).not.toContain(allDay(10));
      expect(toAirbnb).toContain(allDay(40));
    } finally {
      await home.server.stop();
    }
  });

  it("is a double booking when Booking.com showed the same event before it fetched those nights", async () => {
    const home = await loft([stay("a1", 10, 15)], [closed("b0", 40, 42), closed("b1", 10, 15)]);
    try {
      expect((await home.sync()).conflicts).toMatchObject([{ from: day(10), to: day(15) }]);
      await home.fetchFeed("booking");
      // Read again (a new event elsewhere changes the body): the sale stays a sale.
      home.booking([closed("b0", 40, 42), closed("b1", 10, 15), closed("b2", 50, 52)]);
      const response = await home.sync();
      expect(response.conflicts).toHaveLength(1);
      expect(response.conflicts).toMatchObject([{ from: day(10), to: day(15), reservations: [{ source: "airbnb" }, { source: "booking" }] }]);
      expect((await home.reservations("booking")).find((r) => r.uid === "b1")).toMatchObject({ kind: "booking", echoOf: null });
    } finally {
      await home.server.stop();
    }
  });

  it("disappears once the Airbnb stay is cancelled and Booking.com drops it, staying an echo in between", async () => {
    const home = await loft([stay("a1", 10, 15), stay("a2", 30, 33)], [closed("b0", 40, 42)]);
    try {
      await home.sync();
      await home.fetchFeed("booking");
      home.booking([closed("b0", 40, 42), closed("b-echo", 10, 15)]);
      await home.sync();
      const echoOf = (await home.reservations("airbnb")).find((r) => r.uid === "a1")!.id;

      // Cancelled on Airbnb; Booking.com has not fetched since and still exports the echo.
      home.airbnb([stay("a2", 30, 33)]);
      const cancelled = await home.sync();
      expect(counts(cancelled, "airbnb")).toMatchObject({ cancelled: 1 });
      expect(cancelled.conflicts).toBeUndefined();
      expect((await home.reservations("booking")).find((r) => r.uid === "b-echo")).toMatchObject({ kind: "block", status: "active", echoOf });

      // Booking.com fetches the feed without those nights, reopens them and drops its echo.
      expect(await home.fetchFeed("booking")).not.toContain(allDay(10));
      home.booking([closed("b0", 40, 42)]);
      const dropped = await home.sync();
      expect(counts(dropped, "booking")).toEqual({ found: 1, created: 0, updated: 0, cancelled: 1 });
      expect((await home.reservations("booking")).find((r) => r.uid === "b-echo")).toMatchObject({ status: "cancelled", echoOf });
    } finally {
      await home.server.stop();
    }
  });

  it("moves with a stay moved on Airbnb, once Booking.com has fetched the new nights", async () => {
    const home = await loft([stay("a1", 10, 15)], [closed("b0", 40, 42)]);
    try {
      await home.sync();
      await home.fetchFeed("booking");
      home.booking([closed("b0", 40, 42), closed("b-echo", 10, 15)]);
      await home.sync();
      const echoOf = (await home.reservations("airbnb"))[0]!.id;

      home.airbnb([stay("a1", 20, 24)]);
      const moved = await home.sync();
      expect(counts(moved, "airbnb")).toMatchObject({ updated: 1 });
      expect(moved.conflicts).toBeUndefined();
      expect(await home.fetchFeed("booking")).toContain(allDay(20));
      home.booking([closed("b0", 40, 42), closed("b-echo", 20, 24)]);

      const followed = await home.sync();
      expect(followed.conflicts).toBeUndefined();
      expect(counts(followed, "booking")).toEqual({ found: 2, created: 0, updated: 1, cancelled: 0 });
      expect((await home.reservations("booking")).find((r) => r.uid === "b-echo")).toMatchObject({
        kind: "block", status: "active", arrival: day(20), departure: day(24), echoOf,
      });
    } finally {
      await home.server.stop();
    }
  });
});
