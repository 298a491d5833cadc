// `calsync serve` parses feeds on worker threads: the same Sync response as parsing inline, /healthz
// answering while a hostile series is read, and that series stopped at the deadline with parse_error.
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { generateToken } from "../src/server/tokens.js";
import { openStore } from "../src/store/index.js";
import type { CalendarSource, SyncResponse } from "../src/types.js";
import { runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day } from "./helpers/ics.js";
import { startServe } from "./helpers/processes.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const fixture = (name: string) => readFileSync(path.join(root, "test/fixtures", name), "utf8");
const { tmp, feeds } = useCliFixtures({ built: true });
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts `calsync serve --port 0 …` on `db`; resolves with its URL and a `stop()` that expects exit 0. */
async function serve(db: string, args: string[] = []) {
  const server = await startServe(["--db", db, ...args]);
  children.push(server.child);
  return {
    url: server.url,
    async stop() {
      await server.stop();
      expect(await server.exited, server.stderr()).toBe(0);
    },
  };
}

/** A database with owner Ann, property Loft, one calendar per `[source, url]`, and an API token. */
async function database(calendars: Array<[CalendarSource, string]>): Promise<{ db: string; token: string }> {
  const db = tmp.db();
  const store = await openStore(db);
  const owner = await store.createOwner("Ann");
  const property = await store.createProperty(owner.id, "Loft");
  for (const [source, url] of calendars) await store.createCalendar({ propertyId: property.id, source, url });
  const token = generateToken();
  await store.createToken({ ownerId: owner.id, name: "t", prefix: token.prefix, hash: token.hash, expiresAt: null });
  await store.close();
  return { db, token: token.token };
}

function sync(base: string, token: string): Promise<Response> {
  return fetch(`${base}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": token } });
}

/** What two databases may differ in: ids (every `xyz_…` id becomes "ID"), durations; reservations sorted by source and uid. */
async function comparable(db: string, response: SyncResponse) {
  const stored = JSON.parse((await runCli(["reservations", "--json", "--db", db])).stdout) as Array<{ source: string; uid: string }>;
  stored.sort((a, b) => `${a.source} ${a.uid}`.localeCompare(`${b.source} ${b.uid}`));
  const { durationMs: _d, ...rest } = response;
  return JSON.parse(JSON.stringify({ response: rest, stored }).replace(/"[a-z]{3}_[A-Za-z0-9]{20}"/g, '"ID"')) as unknown;
}

describe("calsync serve parsing on worker threads", () => {
  it("answers a sync exactly as parsing on the event loop does: same results, same counts, same reservations", async () => {
    const many = buildIcs(Array.from({ length: 2500 }, (_, i) => ({ uid: `m${i}`, start: day(-300 + (i % 900)), end: day(-297 + (i % 900)), summary: "Reserved" })));
    const calendars: Array<[CalendarSource, string]> = [
      ["airbnb", feeds.url("/pool/airbnb.ics", { body: fixture("airbnb.ics") })],
      ["booking", feeds.url("/pool/booking.ics", { body: fixture("booking.ics") })],
      ["vrbo", feeds.url("/pool/vrbo.ics", { body: fixture("vrbo.ics") })],
      ["google", feeds.url("/pool/google.ics", { body: fixture("google.ics") })],
      ["other", feeds.url("/pool/broken-dates.ics", { body: fixture("broken-dates.ics") })],
      ["expedia", feeds.url("/pool/many.ics", { body: many })],
      ["agoda", feeds.url("/pool/html.ics", { body: "<!doctype html><html><body>Sign in</body></html>" })],
    ];
    const pooled = await database(calendars);
    const inline = await database(calendars);

    const server = await serve(pooled.db);
    const res = await sync(server.url, pooled.token);
    const viaServer = (await res.json()) as SyncResponse;
    await server.stop();
    const local = await runCli(["sync", "--local", "--json", "--allow-private-networks", "--db", inline.db]);

    expect(res.status).toBe(207);
    expect(local.code).toBe(3);
    const onEventLoop = JSON.parse(local.stdout) as SyncResponse;
    expect(viaServer.results.find((entry) => entry.source === "expedia")?.result.reservationsCreated).toBe(2500);
    expect(await comparable(pooled.db, viaServer)).toEqual(await comparable(inline.db, onEventLoop));
  });

  it("stops a hostile dense series at --parse-timeout with parse_error while /healthz keeps answering, writing nothing of it", async () => {
    let served = false;
    const url = feeds.url("/pool/dense.ics", (_req, res) => {
      res.writeHead(200, { "content-type": "text/calendar" }).end(fixture("dense-series-tz.ics"), () => (served = true));
    });
    const { db, token } = await database([["google", url]]);
    const server = await serve(db, ["--parse-timeout", "1000"]);

    let answered = false;
    const answer = sync(server.url, token).then(async (res) => {
      answered = true;
      return { status: res.status, body: (await res.json()) as SyncResponse };
    });
    // One /healthz after another until the sync answers; count those sent once the feed was on its way.
    const statuses: number[] = [];
    let whileParsing = 0;
    while (!answered) {
      const sentAfterFeed = served;
      const health = await fetch(`${server.url}/healthz`);
      statuses.push(health.status);
      await health.arrayBuffer();
      if (sentAfterFeed && !answered) whileParsing++;
    }
    const { status, body } = await answer;
    await server.stop();

    expect(status).toBe(207);
    expect(body.results[0]?.result.error).toEqual({ code: "parse_error", message: "feed took longer than 1 s to read; reading it was stopped" });
    expect(statuses.every((code) => code === 200)).toBe(true);
    // Parsing on the event loop, not one of these would be answered before the sync: the loop is busy for seconds.
    expect(whileParsing).toBeGreaterThanOrEqual(5);
    // The unread body left no fingerprint behind (the next sync reads it again) and no rows.
    const store = await openStore(db);
    try {
      const { calendars } = await store.ownerCalendars((await store.listOwners())[0]!.id);
      expect(calendars.map((calendar) => [calendar.contentHash, calendar.etag, calendar.consecutiveFailures])).toEqual([[null, null, 1]]);
      expect(await store.calendarReservations(calendars[0]!.id)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
