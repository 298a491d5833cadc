// TRANSP:TRANSPARENT ("free" in Google Calendar and Outlook: a plumber's call, a reminder) takes no night
// (CONTRACT §8): not stored, not counted, and a stored reservation whose event turns transparent is cancelled.
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";

const { tmp, feeds } = useCliFixtures();

const stay: IcsEvent = { uid: "stay@g", start: day(10), end: day(13), summary: "Reserved" };
const visit = Date.now() + 5 * 86_400_000;
// Over a night: a shorter visit within one day takes no night even when busy (CONTRACT §4).
const plumber: IcsEvent = {
  uid: "plumber@g",
  start: new Date(visit).toISOString(),
  end: new Date(visit + 26 * 3_600_000).toISOString(),
  summary: "Plumber",
  transparent: true,
};

let routes = 0;

/** A database with one Google calendar serving `events` at a fresh path; returns how to change, sync and list it. */
async function googleCalendar(events: IcsEvent[]) {
  const db = tmp.db();
  const path = `/google-${++routes}.ics`;
  await runCli(["owner", "add", "Ann", "--db", db]);
  const property = JSON.parse((await runCli(["property", "add", "Sea View Loft", "--json", "--db", db])).stdout);
  await runCli(["calendar", "add", "--property", property.id, "--url", feeds.url(path, { body: buildIcs(events) }), "--source", "google", "--db", db]);
  return {
    serve: (next: IcsEvent[]) => feeds.setRoute(path, { body: buildIcs(next) }),
    async sync() {
      const run = await runCli(["sync", "--local", "--allow-private-networks", "--json", "--db", db]);
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout).results[0].result;
    },
    async stored() {
      const listed = JSON.parse((await runCli(["reservations", "--json", "--db", db])).stdout) as Array<{ uid: string; status: string }>;
      return listed.map((r) => [r.uid, r.status]);
    },
  };
}

describe("transparent events", () => {
  it("are neither stored nor counted", async () => {
    const calendar = await googleCalendar([stay, plumber]);
    expect(await calendar.sync()).toMatchObject({ reservationsFound: 1, reservationsCreated: 1 });
    expect(await calendar.stored()).toEqual([["stay@g", "active"]]);
  });

  it("cancel the stored reservation of an event that turns transparent", async () => {
    const calendar = await googleCalendar([stay, { ...plumber, transparent: false }]);
    expect(await calendar.sync()).toMatchObject({ reservationsFound: 2, reservationsCreated: 2 });
    calendar.serve([stay, plumber]);
    expect(await calendar.sync()).toMatchObject({ reservationsFound: 1, reservationsCreated: 0, reservationsUpdated: 0, reservationsCancelled: 1 });
    expect(await calendar.stored()).toEqual(expect.arrayContaining([["stay@g", "active"], ["plumber@g", "cancelled"]]));
  });
});
