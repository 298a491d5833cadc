// Fetch limits, fair and polite (CONTRACT §4), through whole sync runs against loopback feed hosts: an
// owner's run fetches at most 8 at once and 2 per host, a process 16 and 6 per host, and one owner's slow
// feeds never hold back another owner's healthy one on the same host.
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFetchLimiter } from "../src/engine/fetch-limiter.js";
import { syncOwner } from "../src/engine/sync.js";
import { startServer } from "../src/server/index.js";
import { generateToken } from "../src/server/tokens.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";
import { sqliteKind } from "./helpers/stores.js";

const kind = sqliteKind();
const stores: Store[] = [];
let hostA: FeedServer;
let hostB: FeedServer;
beforeAll(async () => {
  hostA = await startFeedServer();
  hostB = await startFeedServer({ host: "127.0.0.2" });
});
afterAll(async () => {
  for (const store of stores.splice(0)) await store.close();
  await hostA.close();
  await hostB.close();
  await kind.dispose();
});

const ics = buildIcs([{ uid: "a", start: day(10), end: day(12), summary: "Reserved" }]);

/** A fresh database with one owner per name, each with `feeds(owner)` calendars on one property. */
async function ownersWith(names: string[], feeds: (owner: string) => string[]) {
  const store = await openStore(await kind.create());
  stores.push(store);
  const ids: Record<string, string> = {};
  for (const name of names) {
    const ownerId = (ids[name] = (await store.createOwner(name)).id);
    const property = await store.createProperty(ownerId, `${name}'s flat`);
    for (const url of feeds(name)) await store.createCalendar({ propertyId: property.id, source: "other", url });
  }
  return { store, ids };
}

/** Counts requests in flight, overall, per host, per owner (the path's first segment) and per owner and host. */
function inFlightMeter() {
  const now = new Map<string, number>();
  const peak = new Map<string, number>();
  const change = (keys: string[], by: number) => {
    for (const key of keys) {
      const n = (now.get(key) ?? 0) + by;
      now.set(key, n);
      peak.set(key, Math.max(peak.get(key) ?? 0, n));
    }
  };
  return {
    peak: (key: string) => peak.get(key) ?? 0,
    peaksOf: (prefix: string) => [...peak].filter(([key]) => key.startsWith(prefix)).map(([, n]) => n),
    /** A route handler that answers after `holdMs`, counted while it is held. */
    handler(host: string, holdMs: number) {
      return (req: IncomingMessage, res: ServerResponse) => {
        const owner = (req.url ?? "").split("/")[1]!;
        const keys = ["all", `host:${host}`, `owner:${owner}`, `owner-host:${owner}@${host}`];
        change(keys, +1);
        setTimeout(() => {
          change(keys, -1);
          res.writeHead(200, { "content-type": "text/calendar" }).end(ics);
        }, holdMs);
      };
    },
  };
}

describe("fetch limits across owners", () => {
  const run = async (limits: Parameters<typeof createFetchLimiter>[0]) => {
    const meter = inFlightMeter();
    const owners = ["o1", "o2", "o3"];
    const { store, ids } = await ownersWith(owners, (owner) =>
      Array.from({ length: 12 }, (_, i) => {
        const [server, name] = i % 2 === 0 ? [hostA, "a"] : [hostB, "b"];
        return server.url(`/${owner}/${limits ? "set" : "def"}-${i}.ics`, meter.handler(name, 150));
      }),
    );
    // One process: one limiter shared by the runs, as `serve` shares it.
    const limiter = createFetchLimiter(limits);
    const responses = await Promise.all(owners.map((o) => syncOwner({ store, ownerId: ids[o]!, allowPrivateNetworks: true, limiter })));
    expect(responses.map((r) => [r.ok, r.syncedCalendars])).toEqual([[true, 12], [true, 12], [true, 12]]);
    return meter;
  };

  it("keeps each owner within 8 feeds and 2 per host, and the process within 16 and 6 per host, by default", async () => {
    const meter = await run(undefined);
    expect(meter.peak("all")).toBeLessThanOrEqual(16);
    for (const n of meter.peaksOf("host:")) expect(n).toBeLessThanOrEqual(6);
    for (const n of meter.peaksOf("owner:")) expect(n).toBeLessThanOrEqual(8);
    for (const n of meter.peaksOf("owner-host:")) expect(n).toBeLessThanOrEqual(2);
    expect(meter.peaksOf("owner-host:")).toHaveLength(6);
    // Owners fetch side by side on one host: more than one owner's share was in flight there at once.
    expect(Math.max(...meter.peaksOf("host:"))).toBeGreaterThan(2);
  });

  it("honours configured limits for the process and for each owner", async () => {
    const meter = await run({ concurrency: 5, perHost: 3, ownerConcurrency: 3, ownerPerHost: 2 });
    expect(meter.peak("all")).toBeLessThanOrEqual(5);
    for (const n of meter.peaksOf("host:")) expect(n).toBeLessThanOrEqual(3);
    for (const n of meter.peaksOf("owner:")) expect(n).toBeLessThanOrEqual(3);
    for (const n of meter.peaksOf("owner-host:")) expect(n).toBeLessThanOrEqual(2);
    expect(meter.peak("all")).toBeGreaterThan(2);
  });
});

describe("calsync serve's fetch limits", () => {
  it("are the ones it was given", async () => {
    const meter = inFlightMeter();
    const { store, ids } = await ownersWith(["o9"], (owner) =>
      Array.from({ length: 6 }, (_, i) => hostA.url(`/${owner}/serve-${i}.ics`, meter.handler("a", 100))),
    );
    const generated = generateToken();
    await store.createToken({ ownerId: ids.o9!, name: "t", prefix: generated.prefix, hash: generated.hash, expiresAt: null });
    const server = await startServer({ store, port: 0, allowPrivateNetworks: true, webhooks: false, parseThreads: 0, log: () => {}, fetchLimits: { ownerPerHost: 1 } });
    try {
      const res = await fetch(`${server.url}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": generated.token } });
      expect(res.status).toBe(200);
    } finally {
      await server.close();
    }
    expect(meter.peak("owner-host:o9@a")).toBe(1);
  });
});

describe("one owner's slow feeds", () => {
  it("do not hold back another owner's healthy feed on the same host", async () => {
    const finished: string[] = [];
    let stop = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    // Drips a valid feed a line at a time, for up to 400 lines, or until the test has seen what it needs.
    const drip = (_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { "content-type": "text/calendar" });
      const lines = ics.split("\r\n");
      res.write(`${lines[0]}\r\n`);
      let sent = 0;
      const timer = setInterval(() => {
        if (++sent < 400) return void res.write(" ");
        clearInterval(timer);
        finished.push("drip ended");
        res.end(`\r\n${lines.slice(1).join("\r\n")}`);
      }, 25);
      void stopped.then(() => (sent = 400));
      res.on("close", () => clearInterval(timer));
    };
    const { store, ids } = await ownersWith(["X", "Z"], (owner) =>
      owner === "X"
        ? [hostA.url("/X/slow-1.ics", drip), hostA.url("/X/slow-2.ics", drip), hostA.url("/X/slow-3.ics", drip)]
        : [hostA.url("/Z/healthy.ics", { body: ics })],
    );
    const limiter = createFetchLimiter();
    const x = syncOwner({ store, ownerId: ids.X!, allowPrivateNetworks: true, limiter, timeoutMs: 30_000 }).then((r) => {
      finished.push("X");
      return r;
    });
    // Z asks once X's feeds hold both of X's slots on the host.
    while (hostA.requests.filter((r) => r.path.startsWith("/X/")).length < 2) await new Promise((r) => setTimeout(r, 5));
    const z = await syncOwner({ store, ownerId: ids.Z!, allowPrivateNetworks: true, limiter });
    finished.push("Z");
    stop();
    expect(z.ok).toBe(true);
    expect((await x).ok).toBe(true);
    expect(finished[0]).toBe("Z");
    expect(finished.filter((f) => f === "drip ended")).toHaveLength(3);
    // X's run kept to its 2 per host: the third feed was asked only after one of the first two ended.
    const xOrder = hostA.requests.filter((r) => r.path.startsWith("/X/")).map((r) => r.path);
    expect(xOrder).toEqual(["/X/slow-1.ics", "/X/slow-2.ics", "/X/slow-3.ics"]);
  });
});
