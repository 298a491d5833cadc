// The benchmark's stand-in for the booking channels: one node:http server per loopback address
// (127.0.0.1 … 127.0.0.k), so the engine's per-host limit meets several hosts as it would in reality.
// Serves generated feeds with a fixed response latency, ETag + 304, and a switch that changes a
// fraction of the feeds. Run as a child process (`fork`), so its memory and CPU stay out of the
// engine's figures; it is driven over HTTP at /__bench/* on any of its addresses.
import { createHash } from "node:crypto";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { feedBody } from "./feeds.js";

/** Default response latency, in milliseconds (a channel's feed endpoint answering from far away). */
export const DEFAULT_LATENCY_MS = 40;

/**
 * Starts `hosts` servers on 127.0.0.1 … 127.0.0.<hosts> (past 254, on to 127.0.1.1 …: the scale
 * series needs more hosts than the engine's per-host limits could hide), each on a free port.
 * Returns their origins and `close()`, which stops them and drops open connections.
 */
export async function startFeedHost({ hosts = 8, latencyMs = DEFAULT_LATENCY_MS } = {}) {
  const state = { latencyMs, today: new Date(), versions: new Map(), bodies: new Map(), stats: newStats() };
  const servers = [];
  try {
    for (let k = 1; k <= hosts; k++) {
      const server = http.createServer((req, res) => handle(state, req, res));
      // Long enough that a pause between two scenarios does not drop the engine's pooled connections.
      server.keepAliveTimeout = 60_000;
      await new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, loopbackAddress(k), resolve);
      });
      servers.push(server);
    }
  } catch (error) {
    await closeAll(servers);
    throw error;
  }
  const origins = servers.map((server) => `http://${server.address().address}:${server.address().port}`);
  return { origins, close: () => closeAll(servers) };
}

/** The k-th loopback address (1-based): 127.0.0.1 … 127.0.0.254, then 127.0.1.1 … */
export function loopbackAddress(k) {
  return `127.0.${Math.floor((k - 1) / 254)}.${((k - 1) % 254) + 1}`;
}

/** The URL of feed `index` of `set`, spread round-robin over the hosts. */
export function feedUrl(origins, set, index) {
  return `${origins[index % origins.length]}/feeds/${set}/${index}.ics`;
}

function handle(state, req, res) {
  const url = new URL(req.url ?? "/", "http://bench.invalid");
  if (url.pathname.startsWith("/__bench/")) return control(state, url, res);
  const match = /^\/feeds\/([\w-]+)\/(\d+)\.ics$/.exec(url.pathname);
  if (!match || req.method !== "GET") {
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    return;
  }
  const [, set, indexText] = match;
  const index = Number(indexText);
  const version = state.versions.get(`${set}/${index}`) ?? 0;
  const feed = bodyOf(state, index, version);
  const stats = statsOf(state, set);
  const respond = () => {
    if (req.headers["if-none-match"] === feed.etag) {
      stats.notModified++;
      res.writeHead(304, { etag: feed.etag }).end();
      return;
    }
    stats.ok++;
    res.writeHead(200, { "content-type": "text/calendar; charset=utf-8", etag: feed.etag, "content-length": feed.body.length });
    res.end(feed.body);
  };
  if (state.latencyMs > 0) setTimeout(respond, state.latencyMs);
  else respond();
}

// Bodies are built once per (index, version): the host must cost the same in floor and sync runs.
function bodyOf(state, index, version) {
  const key = `${index}:${version}`;
  let feed = state.bodies.get(key);
  if (!feed) {
    const body = Buffer.from(feedBody(index, version, state.today));
    feed = { body, etag: `"${createHash("sha1").update(body).digest("hex").slice(0, 20)}"` };
    state.bodies.set(key, feed);
  }
  return feed;
}

function control(state, url, res) {
  const set = url.searchParams.get("set") ?? "";
  const reply = (value) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
  switch (url.pathname) {
    case "/__bench/change": {
      // Changes feeds 0, every, 2·every, … of the set below `count`: 10 % for fraction 0.1.
      const count = Number(url.searchParams.get("count"));
      const every = Math.max(1, Math.round(1 / Number(url.searchParams.get("fraction") ?? "0.1")));
      let changed = 0;
      for (let index = 0; index < count; index += every) {
        const key = `${set}/${index}`;
        state.versions.set(key, (state.versions.get(key) ?? 0) + 1);
        changed++;
      }
      return reply({ changed });
    }
    case "/__bench/latency":
      state.latencyMs = Math.max(0, Number(url.searchParams.get("ms")) || 0);
      return reply({ latencyMs: state.latencyMs });
    case "/__bench/stats": {
      const stats = statsOf(state, set);
      reply({ ...stats });
      if (url.searchParams.has("reset")) Object.assign(stats, { ok: 0, notModified: 0 });
      return;
    }
    default:
      res.writeHead(404, { "content-type": "text/plain" }).end("unknown control");
  }
}

function newStats() {
  return new Map();
}

function statsOf(state, set) {
  let stats = state.stats.get(set);
  if (!stats) state.stats.set(set, (stats = { ok: 0, notModified: 0 }));
  return stats;
}

function closeAll(servers) {
  return Promise.all(
    servers.map(
      (server) =>
        new Promise((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
}

// As a forked child: start, report the origins to the parent, stop when told or when the parent goes.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  const options = JSON.parse(process.argv[2] ?? "{}");
  const host = await startFeedHost(options);
  const stop = async () => {
    await host.close();
    process.disconnect?.();
  };
  process.on("message", (message) => {
    if (message?.type === "close") void stop();
  });
  process.on("disconnect", () => void host.close());
  process.send({ type: "ready", origins: host.origins });
}
