// Shared set-up of the server tests: temp databases, owners with calendars and tokens, servers on port 0,
// a loopback feed server, and a gate that holds a feed's answer to catch the server mid-sync.
import type { ServerResponse } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { startServer, type RunningServer, type ServeOptions } from "../../src/server/index.js";
import { generateToken } from "../../src/server/tokens.js";
import { openStore } from "../../src/store/index.js";
import type { Store } from "../../src/store/types.js";
import type { CalendarSource } from "../../src/types.js";
import { startFeedServer, type FeedServer, type RouteHandler, type RouteSpec } from "./feed-server.js";
import { sqliteKind, type StoreKind } from "./stores.js";
import { buildIcs, day } from "./ics.js";

/** A feed route that holds its answer until `open()`, counting who arrived. */
export class Gate {
  arrived = 0;
  #open = false;
  #held: Array<() => void> = [];
  #arrivals: Array<{ count: number; resolve: () => void }> = [];

  /** Serves `body` once the gate is open. */
  serve(body: string): RouteHandler {
    return (_req, res: ServerResponse) => {
      this.arrived++;
      this.#arrivals = this.#arrivals.filter((a) => (this.arrived >= a.count ? (a.resolve(), false) : true));
      const answer = () => res.writeHead(200, { "content-type": "text/calendar" }).end(body);
      if (this.#open) answer();
      else this.#held.push(answer);
    };
  }

  /** Resolves true once `count` requests arrived, false if `ms` passed first. */
  arrivals(count: number, ms = 5000): Promise<boolean> {
    if (this.arrived >= count) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.#arrivals.push({ count, resolve: () => (clearTimeout(timer), resolve(true)) });
    });
  }

  open(): void {
    this.#open = true;
    for (const answer of this.#held.splice(0)) answer();
  }
}

/** An iCalendar feed with one upcoming stay per UID, a week apart. */
export function ics(...uids: string[]): string {
  return buildIcs(uids.map((uid, i) => ({ uid, start: day(10 + i * 7), end: day(13 + i * 7), summary: "Reserved" })));
}

/** Owner with properties, calendars and one token, as `ownerWith` creates them. */
export interface TestOwner {
  ownerId: string;
  token: string;
  tokenId: string;
  propertyIds: Record<string, string>;
}

/** Creates an owner, its properties with their calendars (in the order given), and a token. */
export async function ownerWith(
  store: Store,
  name: string,
  properties: Record<string, Array<{ source: CalendarSource; url: string }>>,
): Promise<TestOwner> {
  const owner = await store.createOwner(name);
  const propertyIds: Record<string, string> = {};
  for (const [propertyName, calendars] of Object.entries(properties)) {
    const property = await store.createProperty(owner.id, propertyName);
    propertyIds[propertyName] = property.id;
    for (const calendar of calendars) await store.createCalendar({ propertyId: property.id, ...calendar });
  }
  const generated = generateToken();
  const token = await store.createToken({ ownerId: owner.id, name: "t", prefix: generated.prefix, hash: generated.hash, expiresAt: null });
  return { ownerId: owner.id, token: generated.token, tokenId: token.id, propertyIds };
}

/** `POST /api/v1/calendars/sync` with an optional token. */
export function post(server: RunningServer, token?: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/api/v1/calendars/sync`, {
    method: "POST",
    headers: { ...(token ? { "x-api-key": token } : {}), ...headers },
  });
}

/** Polls `condition` until it holds; throws after `ms`. */
export async function until(condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Registers the hooks of one test file (or describe block) and returns its factories; everything is
 * closed after the tests. `kind` picks the database of `newStore()` (default: a SQLite file).
 */
export function useServerFixtures(kind?: StoreKind) {
  const dir = mkdtempSync(path.join(tmpdir(), "calsync-"));
  let feeds: FeedServer | undefined;
  let count = 0;
  const stores: Store[] = [];
  const servers: RunningServer[] = [];
  const locations = new Map<Store, string>();

  beforeAll(async () => {
    feeds = await startFeedServer();
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close({ graceMs: 2000 })));
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await feeds?.close();
    await kind?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  return {
    /** A fresh database path in the temp directory. */
    dbPath: () => path.join(dir, `server-${++count}.db`),
    /** A fresh database of the fixture's kind, closed after the tests. */
    async newStore(): Promise<Store> {
      const location = kind ? await kind.create() : path.join(dir, `server-${++count}.db`);
      const store = await openStore(location);
      stores.push(store);
      locations.set(store, location);
      return store;
    },
    /**
     * Makes every calendar of `store` last fetched an hour ago, so that a direct stay's refresh fetches it again
     * (CONTRACT §14: a calendar fetched in the last minute is not).
     */
    async ageFetches(store: Store): Promise<void> {
      const location = locations.get(store)!;
      await (kind ?? sqliteKind()).query(location, "UPDATE calendars SET last_synced_at = ? WHERE last_synced_at IS NOT NULL", [new Date(Date.now() - 3_600_000).toISOString()]);
    },
    /** Serves a route at a fresh path holding secrets (in path and query), and returns its URL. */
    feed(spec: RouteSpec | RouteHandler): string {
      return `${feeds!.url(`/feeds/${++count}/s3cr3t-path.ics`, spec)}?token=s3cr3t-query`;
    },
    /** Starts a server on 127.0.0.1, port 0, allowing loopback feeds; closed after each test. */
    async serve(
      store: Store,
      options: { syncEveryMs?: number; log?: string[]; jsonLogs?: boolean } & Pick<ServeOptions, "rateLimit" | "apiRateLimit" | "metrics" | "webhooks" | "refreshTimeoutMs"> = {},
    ) {
      const server = await startServer({
        store,
        port: 0,
        host: "127.0.0.1",
        allowPrivateNetworks: true,
        syncEveryMs: options.syncEveryMs,
        jsonLogs: options.jsonLogs,
        rateLimit: options.rateLimit,
        apiRateLimit: options.apiRateLimit,
        metrics: options.metrics,
        webhooks: options.webhooks,
        refreshTimeoutMs: options.refreshTimeoutMs,
        log: (line) => options.log?.push(line),
      });
      servers.push(server);
      return server;
    },
  };
}
