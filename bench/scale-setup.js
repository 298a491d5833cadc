// One set-up of the scale series (issue 40): N calendars of 20 events, owners of `perOwner` calendars,
// in a SQLite file or an embedded PostgreSQL database, synced by `instances` real `calsync serve`
// processes with every owner's POST /api/v1/calendars/sync sent at once, owner j to instance j mod k
// (the owner leases keep two instances off one owner). Two rounds: the first (everything created) and an
// unchanged one (every feed 304). Each round runs on fresh serve processes under node --cpu-prof, so
// its peak RSS (VmHWM), CPU (/proc) and profiles are that round's alone.
import { closeSync, mkdirSync, openSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { openStore } from "../dist/store/index.js";
import { hostControl, mib, round, seedOwner, totals } from "./common.js";
import { EVENTS_PER_FEED, WARM_UP_FEEDS } from "./feeds.js";
import { apiKey, serve, startPostgres } from "./instances.js";
import { PHASES, phasesOfProfiles } from "./scale-phases.js";

const STOP_GRACE_MS = 300_000;

/** Seeds, runs both rounds, measures; returns the figures and checks of this set-up. */
export async function runScaleSetup({ n, origins, set, store: kind, instances, perOwner, profileDir, profileIntervalUs = 5000, ownersInFlight = 2 }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "calsync-bench-scale-"));
  let postgres;
  try {
    postgres = kind === "postgres" ? await startPostgres(dir) : undefined;
    const location = postgres ? await postgres.database(`scale_${n}`) : path.join(dir, "bench.db");
    const t0 = performance.now();
    const { keys, warmKeys } = await seed(location, { n, origins, set, perOwner, instances, parallel: postgres ? 8 : 1 });
    const seedS = round((performance.now() - t0) / 1000, 1);
    const label = `${kind}${instances}-n${n}`;
    const rounds = {};
    for (const name of ["first", "unchanged"]) {
      await hostControl(origins, "stats", { set, reset: 1 });
      const roundDir = path.join(profileDir, `${label}-${name}`);
      rounds[name] = await runRound({ location, keys, warmKeys, instances, n, roundDir, profileIntervalUs, ownersInFlight });
      rounds[name].served = await hostControl(origins, "stats", { set, reset: 1 });
    }
    const dbBytes = postgres ? await postgresSize(location) : sqliteSize(location);
    const checks = [
      ...["first", "unchanged"].map((name) => ({ ok: rounds[name].counts.refusedOwners === 0, what: `${name} round: every owner's sync answered 200 (refused: ${rounds[name].counts.refusedOwners})` })),
      { ok: rounds.first.counts.created === n * EVENTS_PER_FEED && rounds.first.counts.failed === 0, what: "first round created every event" },
      { ok: rounds.first.served.ok === n, what: "first round fetched every body" },
      { ok: rounds.unchanged.counts.changedCalendars === 0 && rounds.unchanged.counts.failed === 0, what: "unchanged round changed nothing" },
      { ok: rounds.unchanged.served.notModified === n, what: "unchanged round got a 304 for every feed" },
    ];
    return { n, store: kind, instances, perOwner, ownersInFlight, owners: keys.length, seedS, dbMiBPer1000: round(mib(dbBytes) / (n / 1000), 2), rounds, checks };
  } finally {
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Owner j goes to instance j mod k; each instance has `ownersInFlight` owners' syncs running at a time
// (2 × the 8 fetches an owner may run = the 16 an instance may). Not every owner at once: before the pool's
// own queue (checkout-gate.ts), 5 or more owners of 200 calendars at once per instance had PostgreSQL
// instances answer 503 in the smoke run; two keep the figures comparable with the earlier runs.
async function spread(keys, servers, ownersInFlight) {
  const answers = new Array(keys.length);
  await Promise.all(
    servers.map(async (server, i) => {
      const mine = keys.map((key, j) => [key, j]).filter(([, j]) => j % servers.length === i);
      let next = 0;
      const worker = async () => {
        for (let at = next++; at < mine.length; at = next++) answers[mine[at][1]] = await post(server.url, mine[at][0]);
      };
      await Promise.all(Array.from({ length: ownersInFlight }, worker));
    }),
  );
  return answers;
}

async function runRound({ location, keys, warmKeys, instances, n, roundDir, profileIntervalUs, ownersInFlight }) {
  const servers = [];
  try {
    for (let i = 0; i < instances; i++) {
      const profiles = path.join(roundDir, `instance-${i}`);
      rmSync(profiles, { recursive: true, force: true });
      mkdirSync(profiles, { recursive: true });
      const nodeArgs = ["--cpu-prof", `--cpu-prof-dir=${profiles}`, `--cpu-prof-interval=${profileIntervalUs}`];
      const logFd = openSync(path.join(roundDir, `instance-${i}.log`), "w");
      try {
        servers.push(await serve(location, { nodeArgs, args: ["--rate-limit", "0", "--json-logs"], logFd }));
      } finally {
        closeSync(logFd);
      }
    }
    // Each instance warms its JIT, pools and parse workers on feeds of its own, untimed.
    const warm = await Promise.all(servers.map((server, i) => post(server.url, warmKeys[i])));
    if (warm.some((answer) => answer.error)) throw new Error(`warm-up sync refused: ${JSON.stringify(warm.find((answer) => answer.error))}`);
    const cpu0 = servers.map((server) => server.cpuMs());
    const t0 = performance.now();
    const answers = await spread(keys, servers, ownersInFlight);
    const ms = performance.now() - t0;
    const cpuMs = servers.map((server, i) => server.cpuMs() - cpu0[i]);
    const peakRssMiB = servers.map((server) => peakRss(server.pid));
    const refused = answers.filter((answer) => answer.error);
    const counts = answers.filter((answer) => !answer.error).map(totals).reduce((sum, t) => ({
      created: sum.created + t.created,
      changedCalendars: sum.changedCalendars + t.changedCalendars,
      failed: sum.failed + t.failed,
    }), { created: 0, changedCalendars: 0, failed: 0 });
    Object.assign(counts, { refusedOwners: refused.length, refusals: [...new Set(refused.map((a) => `${a.status} ${a.error}`))] });
    // Long enough for serve to end its channel check under way (minutes at 100,000 calendars) and write
    // its profiles: at 10 s, the 100,000 run of 2026-11-28 was killed first and left none.
    await Promise.all(servers.splice(0).map((server) => server.stop(STOP_GRACE_MS)));
    const cpuMsPerCalendar = round(cpuMs.reduce((a, b) => a + b, 0) / n, 3);
    return { ms: round(ms, 1), cpuMs: cpuMs.map((v) => round(v, 0)), cpuMsPerCalendar, peakRssMiB, counts, phases: phaseSplit(roundDir, instances, cpuMsPerCalendar) };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

// The profiles' shares of each phase, applied to the round's measured CPU per calendar (the profiles
// also hold start-up and the warm-up, a small part at these sizes).
function phaseSplit(roundDir, instances, cpuMsPerCalendar) {
  const sum = Object.fromEntries(PHASES.map((phase) => [phase, 0]));
  let files = 0;
  for (let i = 0; i < instances; i++) {
    const one = phasesOfProfiles(path.join(roundDir, `instance-${i}`));
    files += one.files;
    for (const phase of PHASES) sum[phase] += one.ms[phase];
  }
  const total = PHASES.reduce((acc, phase) => acc + sum[phase], 0);
  const msPerCalendar = Object.fromEntries(PHASES.map((phase) => [phase, total ? round((sum[phase] / total) * cpuMsPerCalendar, 3) : null]));
  return { profiles: files, profiledMs: Math.round(total), msPerCalendar };
}

// Owners of `perOwner` calendars with an API key each, and one warm-up owner per instance.
async function seed(location, { n, origins, set, perOwner, instances, parallel }) {
  const store = await openStore(location);
  try {
    const owners = Math.ceil(n / perOwner);
    const keys = new Array(owners);
    let next = 0;
    const worker = async () => {
      for (let j = next++; j < owners; j = next++) {
        const count = Math.min(perOwner, n - j * perOwner);
        const { ownerId } = await seedOwner(store, { name: `Owner ${String(j).padStart(5, "0")}`, origins, set, first: j * perOwner, count });
        keys[j] = await apiKey(store, ownerId);
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    const warmKeys = [];
    for (let i = 0; i < instances; i++) {
      const { ownerId } = await seedOwner(store, { name: `Warm-up ${i}`, origins, set: `${set}-warm-${i}`, count: WARM_UP_FEEDS });
      warmKeys.push(await apiKey(store, ownerId));
    }
    return { keys, warmKeys };
  } finally {
    await store.close();
  }
}

// POST through node:http: a round at 100,000 calendars may answer after minutes, past fetch's 300 s header timeout.
function post(baseUrl, key) {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": key }, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => {
        // A refused owner (503 when the database is out of reach) is a result of the round, not the bench's end.
        if (res.statusCode === 200) resolve(JSON.parse(body));
        else resolve({ status: res.statusCode, error: body.slice(0, 200) });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

// The kernel's high-water mark of the process's resident memory (Linux), in MiB.
function peakRss(pid) {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? round(Number(match[1]) / 1024, 1) : null;
}

function sqliteSize(file) {
  return [file, `${file}-wal`].reduce((sum, name) => {
    try {
      return sum + statSync(name).size;
    } catch {
      return sum;
    }
  }, 0);
}

async function postgresSize(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT pg_database_size(current_database()) AS bytes");
    return Number(rows[0].bytes);
  } finally {
    await client.end();
  }
}
