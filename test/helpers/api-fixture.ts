// A real calsync server for SDK and remote-CLI tests: a temp SQLite store, a loopback feed server, and
// startServer() on port 0, with owners whose calendars all succeed, partly fail, or hang.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { startServer } from "../../src/server/serve.js";
import { generateToken } from "../../src/server/tokens.js";
import { openStore } from "../../src/store/index.js";
import type { Owner, Store } from "../../src/store/types.js";
import { startFeedServer, type FeedServer } from "./feed-server.js";
import { buildIcs, day } from "./ics.js";

/** A running server with its data. */
export interface ApiFixture {
  /** Base URL of the API, e.g. `http://127.0.0.1:41234`. */
  url: string;
  store: Store;
  feeds: FeedServer;
  owners: {
    /** "Ann": Sea View Loft with an Airbnb (2 stays) and a Vrbo (1 stay) calendar; every sync answers 200. */
    allOk: Owner;
    /** "Bob": Harbour Cottage with a good Airbnb calendar and a Booking.com feed answering 503; answers 207. */
    someFailed: Owner;
    /** "Cem": one calendar whose feed never answers. */
    hanging: Owner;
    /** "Dee": a property without calendars. */
    noCalendars: Owner;
  };
  /** A valid token of each owner. */
  tokens: { allOk: string; someFailed: string; hanging: string; noCalendars: string };
  /** Creates another token for `owner` (expired when `expiresAt` is in the past). */
  createToken(owner: Owner, expiresAt?: Date): Promise<{ id: string; token: string }>;
  /** Closes feeds first (so hanging fetches end), then the server, the store, and removes the temp dir. */
  close(): Promise<void>;
}

/** Starts the whole set-up; call `close()` in afterAll. */
export async function startApiFixture(): Promise<ApiFixture> {
  const dir = mkdtempSync(path.join(tmpdir(), "calsync-api-"));
  const store = await openStore(path.join(dir, "calsync.db"));
  const feeds = await startFeedServer();

  const stay = (uid: string, from: number, nights: number) => ({ uid, start: day(from), end: day(from + nights), summary: "Reserved" });
  const owner = async (name: string, property: string, calendars: Array<{ source: "airbnb" | "vrbo" | "booking"; path: string; spec: Parameters<FeedServer["route"]>[1] }>) => {
    const created = await store.createOwner(name);
    const prop = await store.createProperty(created.id, property);
    for (const c of calendars) await store.createCalendar({ propertyId: prop.id, source: c.source, url: feeds.url(c.path, c.spec) });
    return created;
  };

  const owners = {
    allOk: await owner("Ann", "Sea View Loft", [
            { source: "airbnb", path: "/ann/airbnb.ics", spec: { body: buildIcs([stay("a1", 5, 3), stay("a2", 12, 4)]) } },
            { source: "vrbo", path: "/ann/vrbo.ics", spec: { body: buildIcs([stay("v1", 20, 2)]) } },
          ]),
    someFailed: await owner("Bob", "Harbour Cottage", [
          { source: "airbnb", path: "/bob/airbnb.ics", spec: { body: buildIcs([stay("b1", 7, 2)]) } },
          { source: "booking", path: "/bob/booking.ics", spec: { status: 503, body: "busy" } },
        ]),
    hanging: await owner("Cem", "Slow Loft", [{ source: "airbnb", path: "/cem/airbnb.ics", spec: { hang: true } }]),
    noCalendars: await owner("Dee", "Empty House", []),
  };

  const createToken = async (who: Owner, expiresAt?: Date) => {
    const generated = generateToken();
    const record = await store.createToken({ ownerId: who.id, name: "test", prefix: generated.prefix, hash: generated.hash, expiresAt: expiresAt ?? null });
    return { id: record.id, token: generated.token };
  };
  const tokens = {
    allOk: (await createToken(owners.allOk)).token,
    someFailed: (await createToken(owners.someFailed)).token,
    hanging: (await createToken(owners.hanging)).token,
    noCalendars: (await createToken(owners.noCalendars)).token,
  };

  const server = await startServer({ store, host: "127.0.0.1", port: 0, allowPrivateNetworks: true, log: () => {} });
  return {
    url: server.url,
    store,
    feeds,
    owners,
    tokens,
    createToken,
    async close() {
      await feeds.close();
      await server.close({ graceMs: 2_000 });
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The address of a loopback port that was free a moment ago (opened, then closed): nothing listens there. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
