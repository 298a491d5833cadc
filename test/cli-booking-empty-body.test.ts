// Booking.com answers an empty calendar with an empty body (CONTRACT §8): for `booking` that is an empty
// calendar under the mass-cancellation guard; from any other channel it stays not_icalendar.
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day } from "./helpers/ics.js";

const { tmp, feeds } = useCliFixtures();

let routes = 0;

/** A database with one calendar of `source` served at a fresh path answering `body`; returns how to change and sync it. */
async function calendarOf(source: string, body: string) {
  const db = tmp.db();
  const path = `/feed-${++routes}.ics`;
  await runCli(["owner", "add", "Ann", "--db", db]);
  const property = JSON.parse((await runCli(["property", "add", "Sea View Loft", "--json", "--db", db])).stdout);
  const added = await runCli(["calendar", "add", "--property", property.id, "--url", feeds.url(path, { body }), "--source", source, "--db", db]);
  expect(added.code, added.stderr).toBe(0);
  return {
    serve: (next: string) => feeds.setRoute(path, { body: next }),
    async sync(...flags: string[]) {
      const run = await runCli(["sync", "--local", "--allow-private-networks", "--json", "--db", db, ...flags]);
      return { code: run.code, result: JSON.parse(run.stdout).results[0].result };
    },
    async active() {
      const listed = JSON.parse((await runCli(["reservations", "--json", "--db", db])).stdout) as Array<{ uid: string; status: string }>;
      return listed.filter((r) => r.status === "active").map((r) => r.uid);
    },
  };
}

const stay = (uid: string, from: number) => ({ uid, start: day(from), end: day(from + 3), summary: "CLOSED - Not available" });
const counts = (found: number, created: number, updated: number, cancelled: number) => ({
  status: "success",
  reservationsFound: found,
  reservationsCreated: created,
  reservationsUpdated: updated,
  reservationsCancelled: cancelled,
});

describe("Booking.com's empty body", () => {
  it.each([
    ["zero bytes", ""],
    ["only whitespace", "\r\n  \r\n"],
  ])("is an empty calendar on the first sync (%s): success, found 0", async (_name, body) => {
    const calendar = await calendarOf("booking", body);
    expect(await calendar.sync()).toEqual({ code: 0, result: counts(0, 0, 0, 0) });
  });

  it("cancels the one upcoming stay of a calendar that goes empty", async () => {
    const calendar = await calendarOf("booking", buildIcs([stay("b1", 10)]));
    expect((await calendar.sync()).result).toEqual(counts(1, 1, 0, 0));
    calendar.serve("");
    expect(await calendar.sync()).toEqual({ code: 0, result: counts(0, 0, 0, 1) });
    expect(await calendar.active()).toEqual([]);
  });

  it("trips the mass-cancellation guard when two upcoming stays would go, and cancels them with --force", async () => {
    const calendar = await calendarOf("booking", buildIcs([stay("b1", 10), stay("b2", 20)]));
    expect((await calendar.sync()).result).toEqual(counts(2, 2, 0, 0));
    calendar.serve("");
    const guarded = await calendar.sync();
    expect(guarded.code).toBe(3);
    expect(guarded.result.error.code).toBe("suspicious_feed");
    expect(await calendar.active()).toEqual(["b1", "b2"]);
    expect((await calendar.sync("--force")).result).toEqual(counts(0, 0, 0, 2));
  });

  it.each(["airbnb", "vrbo", "other"])("stays not_icalendar from %s, whose outages look like that", async (source) => {
    const calendar = await calendarOf(source, buildIcs([stay("x1", 10)]));
    await calendar.sync();
    calendar.serve("");
    const failed = await calendar.sync();
    expect(failed.code).toBe(3);
    expect(failed.result.error.code).toBe("not_icalendar");
    expect(await calendar.active()).toEqual(["x1"]);
  });

  it("still fails an HTML answer from Booking.com", async () => {
    const calendar = await calendarOf("booking", "<!doctype html><title>Sign in</title>");
    expect((await calendar.sync()).result.error.code).toBe("not_icalendar");
  });
});
