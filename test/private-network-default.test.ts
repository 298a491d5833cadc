// The private-network guard is on unless the operator turns it off (CONTRACT §5): for the engine, and for
// `calsync serve` as a real process with neither the flag nor CALSYNC_ALLOW_PRIVATE_NETWORKS.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { syncOwner } from "../src/engine/sync.js";
import { generateToken } from "../src/server/tokens.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import type { SyncResponse } from "../src/types.js";
import { isBuilt } from "./helpers/cli.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";
import { buildIcs, day } from "./helpers/ics.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const children: ChildProcess[] = [];
let feeds: FeedServer;
let dir: string;

const stay = (uid: string, from: number, to: number) => ({ uid, start: day(from), end: day(to), summary: "Reserved" });
const feedRequests = (route: string) => feeds.requests.filter((r) => r.path.split("?")[0] === route).length;

beforeAll(async () => {
  feeds = await startFeedServer();
  dir = mkdtempSync(path.join(tmpdir(), "calsync-private-default-"));
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await Promise.all(children.map((child) => (child.exitCode === null && child.signalCode === null ? new Promise((r) => child.once("exit", r)) : undefined)));
  await feeds.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("syncOwner without allowPrivateNetworks", () => {
  let store: Store;
  let ownerId: string;
  let calendarId: string;
  let n = 0;
  let route: string;

  beforeEach(async () => {
    store = await openStore(path.join(dir, `engine-${++n}.db`));
    ownerId = (await store.createOwner("Ana")).id;
    const property = await store.createProperty(ownerId, "Sea View Loft");
    route = `/engine-${n}.ics`;
    feeds.setRoute(route, { body: buildIcs([stay("a", 3, 6), stay("b", 10, 12)]) });
    calendarId = (await store.createCalendar({ propertyId: property.id, url: feeds.url(route), source: "airbnb" })).id;
  });
  afterEach(async () => await store.close());

  it("refuses a loopback feed with blocked_address and leaves the stored reservations untouched", async () => {
    // Seed the calendar with the guard explicitly off, then change the feed so a fetch would change rows.
    const seeded = await syncOwner({ store, ownerId, allowPrivateNetworks: true, timeoutMs: 2000 });
    expect(seeded.ok).toBe(true);
    const before = await store.listReservations();
    expect(before.map((r) => r.uid)).toEqual(["a", "b"]);
    feeds.setRoute(route, { body: buildIcs([stay("a", 4, 7), stay("c", 20, 22)]) });
    const requestsBefore = feedRequests(route);

    const response = await syncOwner({ store, ownerId, timeoutMs: 2000 });

    expect(response).toMatchObject({ ok: false, failed: 1, syncedCalendars: 1 });
    const entry = response.results[0]!;
    expect(entry.ok).toBe(false);
    expect(entry.result).toMatchObject({
      status: "failed", reservationsFound: 0, reservationsCreated: 0, reservationsUpdated: 0, reservationsCancelled: 0,
    });
    expect(entry.result.error?.code).toBe("blocked_address");
    expect(await store.listReservations()).toEqual(before);
    expect((await store.getCalendar(calendarId))?.lastErrorCode).toBe("blocked_address");
    // Refused before connecting: the feed server never saw the request.
    expect(feedRequests(route)).toBe(requestsBefore);
  });

  it("treats allowPrivateNetworks: false like the default", async () => {
    const response = await syncOwner({ store, ownerId, allowPrivateNetworks: false, timeoutMs: 2000 });
    expect(response.results[0]?.result.error?.code).toBe("blocked_address");
    expect(await store.listReservations()).toEqual([]);
  });

  it("also refuses a loopback feed named by host name (checked at connect time)", async () => {
    const property = await store.createProperty(ownerId, "Garden Flat");
    const port = new URL(feeds.baseUrl).port;
    await store.createCalendar({ propertyId: property.id, url: `http://localhost:${port}${route}`, source: "other" });
    const response = await syncOwner({ store, ownerId, timeoutMs: 2000 });
    expect(response.results.map((r) => r.result.error?.code)).toEqual(["blocked_address", "blocked_address"]);
    expect(await store.listReservations()).toEqual([]);
  });

  it("syncs the same loopback feed once private networks are allowed", async () => {
    const response = await syncOwner({ store, ownerId, allowPrivateNetworks: true, timeoutMs: 2000 });
    expect(response.ok).toBe(true);
    expect(response.results[0]?.result).toMatchObject({ status: "success", reservationsFound: 2, reservationsCreated: 2 });
    expect((await store.listReservations()).map((r) => r.uid)).toEqual(["a", "b"]);
  });
});

/**
 * Starts the built `calsync serve` with this process's environment minus every `CALSYNC_*` variable (so no
 * CALSYNC_ALLOW_PRIVATE_NETWORKS, whatever the shell running the tests has), PORT and HOST; resolves with its URL.
 */
async function startServe(args: string[]): Promise<{ url: string; stop: () => Promise<number | null> }> {
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("CALSYNC_") && key !== "PORT" && key !== "HOST") childEnv[key] = value;
  }
  expect(childEnv).not.toHaveProperty("CALSYNC_ALLOW_PRIVATE_NETWORKS");
  const child = spawn(process.execPath, [path.join(root, "bin/calsync.js"), "serve", ...args], {
    cwd: root,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("\n")) resolve(stdout.trim());
    });
    void exited.then(() => reject(new Error(`serve exited before printing its URL:\n${stderr}`)));
  });
  return {
    url,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

describe("calsync serve without --allow-private-networks", () => {
  let db: string;
  let token: string;

  beforeAll(async () => {
    if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
    db = path.join(dir, "serve.db");
    const store = await openStore(db);
    try {
      const owner = await store.createOwner("Ann");
      const property = await store.createProperty(owner.id, "Loft");
      feeds.setRoute("/serve.ics", { body: buildIcs([stay("s1", 5, 8), stay("s2", 12, 15)]) });
      await store.createCalendar({ propertyId: property.id, source: "airbnb", url: feeds.url("/serve.ics") });
      const generated = generateToken();
      await store.createToken({ ownerId: owner.id, name: "t", prefix: generated.prefix, hash: generated.hash, expiresAt: null });
      token = generated.token;
    } finally {
      await store.close();
    }
  });

  const syncVia = async (url: string) => {
    const res = await fetch(`${url}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": token } });
    return { status: res.status, body: (await res.json()) as SyncResponse };
  };

  it("answers a sync of a loopback feed with 207 and blocked_address", async () => {
    const serve = await startServe(["--db", db, "--host", "127.0.0.1", "--port", "0"]);
    try {
      expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const requestsBefore = feedRequests("/serve.ics");
      const { status, body } = await syncVia(serve.url);
      expect(status).toBe(207);
      expect(body).toMatchObject({ ok: false, failed: 1, syncedCalendars: 1 });
      expect(body.results[0]?.ok).toBe(false);
      expect(body.results[0]?.result.status).toBe("failed");
      expect(body.results[0]?.result.error?.code).toBe("blocked_address");
      expect(feedRequests("/serve.ics")).toBe(requestsBefore);
    } finally {
      expect(await serve.stop()).toBe(0);
    }
    const after = await openStore(db);
    try {
      expect(await after.listReservations()).toEqual([]);
    } finally {
      await after.close();
    }
  });

  it("syncs the same feed with 200 once --allow-private-networks is given", async () => {
    const serve = await startServe(["--db", db, "--host", "127.0.0.1", "--port", "0", "--allow-private-networks"]);
    try {
      const { status, body } = await syncVia(serve.url);
      expect(status).toBe(200);
      expect(body.results[0]?.result).toMatchObject({ status: "success", reservationsCreated: 2 });
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });
});
