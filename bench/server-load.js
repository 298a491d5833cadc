// Many owners at once through the real server (POST /api/v1/calendars/sync on 127.0.0.1, port 0),
// against the same work run in-process with syncOwner and one shared limiter, as the server's runner
// does. Two stores seeded alike; rounds alternate local then server: round 1 creates everything,
// later rounds are unchanged re-syncs (304s).
import { createFetchLimiter } from "../dist/engine/fetch-limiter.js";
import { syncOwner } from "../dist/engine/sync.js";
import { generateToken, startServer } from "../dist/server/index.js";
import { percentile, round, seedOwner, tempStore, totals } from "./common.js";
import { EVENTS_PER_FEED, WARM_UP_FEEDS } from "./feeds.js";

const REQUEST_TIMEOUT_MS = 60_000;

/** Runs `rounds` rounds of `owners` concurrent owner syncs each way; returns throughput, latencies and checks. */
export async function runServerLoad({ origins, set = "srv", owners = 50, calendarsPerOwner = 4, rounds = 4 }) {
  const local = await tempStore();
  const remote = await tempStore();
  let server;
  try {
    const seed = (store, name, first) => seedOwner(store, { name, origins, set, first, count: calendarsPerOwner });
    const localOwners = [];
    const remoteKeys = [];
    for (let j = 0; j < owners; j++) {
      localOwners.push((await seed(local.store, `Owner ${j}`, j * calendarsPerOwner)).ownerId);
      remoteKeys.push(await apiKey(remote.store, (await seed(remote.store, `Owner ${j}`, j * calendarsPerOwner)).ownerId));
    }
    const warmLocal = await seedOwner(local.store, { name: "Warm-up", origins, set: `${set}-warm`, count: WARM_UP_FEEDS });
    const warmRemote = await seedOwner(remote.store, { name: "Warm-up", origins, set: `${set}-warm`, count: WARM_UP_FEEDS });

    server = await startServer({ store: remote.store, host: "127.0.0.1", port: 0, allowPrivateNetworks: true, log: () => {} });
    const endpoint = `${server.url}/api/v1/calendars/sync`;
    const limiter = createFetchLimiter();
    const localSync = (ownerId) => syncOwner({ store: local.store, ownerId, limiter, allowPrivateNetworks: true, trigger: "api" });
    const remoteSync = async (key) => {
      const res = await fetch(endpoint, { method: "POST", headers: { "x-api-key": key }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      const body = await res.json();
      if (res.status !== 200) throw new Error(`server answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
      return body;
    };

    await localSync(warmLocal.ownerId);
    await remoteSync(await apiKey(remote.store, warmRemote.ownerId));

    const runs = { local: [], server: [] };
    for (let r = 0; r < rounds; r++) {
      runs.local.push(await round_(localOwners, localSync));
      runs.server.push(await round_(remoteKeys, remoteSync));
    }

    const calendars = owners * calendarsPerOwner;
    const checks = [];
    for (const side of ["local", "server"]) {
      const [first, ...again] = runs[side];
      checks.push(check(first.created === calendars * EVENTS_PER_FEED && first.failed === 0, `${side}: round 1 created every event`));
      checks.push(check(again.every((run) => run.changes === 0 && run.failed === 0), `${side}: later rounds changed nothing`));
    }
    return {
      owners,
      calendarsPerOwner,
      rounds,
      first: { local: summary(runs.local.slice(0, 1), calendars), server: summary(runs.server.slice(0, 1), calendars) },
      resync: { local: summary(runs.local.slice(1), calendars), server: summary(runs.server.slice(1), calendars) },
      checks,
    };
  } finally {
    await server?.close({ graceMs: 5_000 });
    await local.dispose();
    await remote.dispose();
  }
}

// One round: every owner at once; per-owner latency and the round's wall time.
async function round_(owners, sync) {
  const t0 = performance.now();
  const latencies = [];
  const responses = await Promise.all(
    owners.map(async (owner) => {
      const started = performance.now();
      const response = await sync(owner);
      latencies.push(performance.now() - started);
      return response;
    }),
  );
  const ms = performance.now() - t0;
  const sum = responses.map(totals).reduce(
    (acc, t) => ({ created: acc.created + t.created, changes: acc.changes + t.created + t.updated + t.cancelled, failed: acc.failed + t.failed }),
    { created: 0, changes: 0, failed: 0 },
  );
  return { ms, latencies, ...sum };
}

function summary(runs, calendars) {
  const ms = runs.reduce((sum, run) => sum + run.ms, 0);
  const latencies = runs.flatMap((run) => run.latencies);
  return {
    wallMs: round(ms, 1),
    requests: latencies.length,
    syncsPerSecond: round((latencies.length / ms) * 1000, 1),
    calendarsPerSecond: round(((calendars * runs.length) / ms) * 1000, 1),
    p50Ms: round(percentile(latencies, 50), 1),
    p99Ms: round(percentile(latencies, 99), 1),
  };
}

async function apiKey(store, ownerId) {
  const { token, prefix, hash } = generateToken();
  await store.createToken({ ownerId, name: "bench", prefix, hash, expiresAt: null });
  return token;
}

function check(ok, what) {
  return { ok, what };
}
