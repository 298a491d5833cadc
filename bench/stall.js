// Does the server keep answering while it reads a huge feed? The server runs in a process of its own
// (stall-server.js); this process serves the feed and, as a second process would, polls `GET /healthz`
// every 20 ms while one owner's sync runs, timing each answer. Each feed is synced on a fresh database
// twice: with the server's parse workers, and with parsing on its event loop (the baseline).
import { fork, spawn } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { generateToken } from "../dist/server/index.js";
import { percentile, round, tempStore } from "./common.js";
import { BIG_FEED_EVENTS, DENSE_SERIES_OCCURRENCES, bigFeed, denseSeriesFeed } from "./stall-feeds.js";

const POLL_EVERY_MS = 20;
const BIN = fileURLToPath(new URL("../bin/calsync.js", import.meta.url));
/** Polls before the sync starts, so a slow first answer of a fresh server is not counted. */
const IDLE_POLLS = 10;

/** Syncs the 20,000-event feed and the dense series, each with workers and inline; /healthz latencies per run. */
export async function runStall() {
  const feeds = { big: bigFeed(), dense: denseSeriesFeed() };
  const host = http.createServer((req, res) => {
    const body = feeds[(req.url ?? "").replace(/^\/|\.ics$/g, "")];
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": "text/calendar" }).end(body);
  });
  await new Promise((resolve) => host.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${host.address().port}`;
  const agent = new Agent({ connections: 200 });
  try {
    const scenarios = [
      { id: "big", source: "airbnb", expected: BIG_FEED_EVENTS },
      { id: "dense", source: "google", expected: DENSE_SERIES_OCCURRENCES },
    ];
    const out = {};
    for (const { id, source, expected } of scenarios) {
      const url = `${origin}/${id}.ics`;
      out[id] = {
        workers: await measure({ url, source, expected, agent, parseThreads: undefined }),
        inline: await measure({ url, source, expected, agent, parseThreads: 0 }),
      };
      // The server as an operator runs it: `calsync serve`, start-up, metrics, mail and all.
      if (id === "big") out[id].cli = await measure({ url, source, expected, agent, viaCli: true });
    }
    const checks = Object.entries(out).flatMap(([id, runs]) =>
      Object.entries(runs).map(([mode, run]) => ({ ok: run.created === run.expected, what: `${id} feed, ${mode}: the sync created ${run.expected} reservations (got ${run.created}${run.error ? `, ${run.error}` : ""})` })),
    );
    return { pollEveryMs: POLL_EVERY_MS, bigFeedEvents: BIG_FEED_EVENTS, bigFeedBytes: feeds.big.length, denseOccurrences: DENSE_SERIES_OCCURRENCES, ...out, checks };
  } finally {
    await agent.close();
    await new Promise((resolve) => host.close(resolve));
  }
}

/** One sync of `url` through a fresh server while polling /healthz; latencies of the polls sent during the sync. */
async function measure({ url, source, expected, agent, parseThreads, viaCli = false }) {
  const { store, dispose } = await tempStore();
  const owner = await store.createOwner("Stall");
  const property = await store.createProperty(owner.id, "Big feed");
  await store.createCalendar({ propertyId: property.id, url, source });
  const { token, prefix, hash } = generateToken();
  await store.createToken({ ownerId: owner.id, name: "bench", prefix, hash, expiresAt: null });
  const server = viaCli ? await startCliServe(store.path) : await startServerProcess({ db: store.path, parseThreads });
  try {
    const polls = [];
    let syncing = false;
    const poll = async () => {
      const sent = performance.now();
      const during = syncing;
      try {
        const res = await request(`${server.url}/healthz`, { dispatcher: agent });
        await res.body.dump();
        polls.push({ during, ms: performance.now() - sent, ok: res.statusCode === 200 });
      } catch {
        // A keep-alive socket the server closed as this poll went out: counted, not fatal.
        polls.push({ during, ms: performance.now() - sent, ok: false });
      }
    };
    const pending = new Set();
    const timer = setInterval(() => {
      const p = poll().finally(() => pending.delete(p));
      pending.add(p);
    }, POLL_EVERY_MS);
    await new Promise((resolve) => setTimeout(resolve, IDLE_POLLS * POLL_EVERY_MS));
    syncing = true;
    const t0 = performance.now();
    const res = await request(`${server.url}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": token }, dispatcher: agent });
    const response = await res.body.json();
    const syncMs = performance.now() - t0;
    syncing = false;
    clearInterval(timer);
    await Promise.all(pending);
    const latencies = polls.filter((p) => p.during).map((p) => p.ms);
    return {
      syncMs: round(syncMs, 0),
      polls: latencies.length,
      failedPolls: polls.filter((p) => !p.ok).length,
      p50Ms: round(percentile(latencies, 50), 1),
      p99Ms: round(percentile(latencies, 99), 1),
      maxMs: round(Math.max(...latencies), 1),
      expected,
      created: response.results?.[0]?.result.reservationsCreated ?? 0,
      // Why a sync created nothing: its error code, or the answer's status when it was no sync response.
      error: response.results?.[0]?.result.error?.code ?? (response.results ? null : `status ${res.statusCode}`),
    };
  } finally {
    await server.close();
    await dispose();
  }
}

/** Forks stall-server.js and waits for its URL; `close()` disconnects it and waits for its exit. */
async function startServerProcess(config) {
  const child = fork(fileURLToPath(new URL("stall-server.js", import.meta.url)), [JSON.stringify(config)], { stdio: ["ignore", 2, 2, "ipc"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const url = await new Promise((resolve, reject) => {
    child.once("message", (message) => resolve(message.url));
    child.once("exit", (code) => reject(new Error(`stall server exited (${code}) before listening`)));
  });
  return {
    url,
    async close() {
      child.disconnect();
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** `calsync serve` on `db`, port 0, as a process of its own; its URL from the `--json` line it prints. */
async function startCliServe(db) {
  const args = [BIN, "serve", "--json", "--db", db, "--host", "127.0.0.1", "--port", "0", "--allow-private-networks"];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "ignore"], env: { PATH: process.env.PATH ?? "" } });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      // One pretty-printed JSON document: done once it parses whole.
      try {
        resolve(JSON.parse(out).url);
      } catch {
        // Not whole yet: wait for the next chunk.
      }
    });
    child.once("exit", (code) => reject(new Error(`calsync serve exited (${code}) before listening`)));
  });
  return {
    url,
    async close() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
