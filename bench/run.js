// `npm run bench`: the sync engine against the network floor, measured in one run on this machine.
// Starts the loopback feed host, runs every measurement in a child process of its own (so each N's
// peak RSS is its own), prints a table with PASS/MISS per target and writes bench/results/latest.json.
//
//   node bench/run.js [--full] [--json] [--latency MS] [--hosts K] [--sizes 100,1000] [--cpu-prof] [--only cli,stall,…]
//   node bench/run.js --scale [--scale-sizes 10000,30000,100000] [--scale-setups sqlite1,postgres2]   (issue 40's series, alone; about an hour)
import { fork } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULT_LATENCY_MS } from "./feed-host.js";
import { CALENDARS_PER_PROPERTY } from "./feeds.js";
import { buildResults, formatTable } from "./report.js";

const HERE = new URL("./", import.meta.url);
/** The CLI rows' set-up (issue 31): feeds, and their latency in milliseconds. */
const CLI_FEEDS = 300;
const CLI_LATENCY_MS = 100;
const RESULTS_DIR = new URL("results/", HERE);
/** The scale series' set-up (issue 40): feed latency, and loopback hosts enough that no per-host limit binds. */
const SCALE_LATENCY_MS = 100;
const SCALE_HOSTS = 64;

const { values: flags } = parseArgs({
  options: {
    full: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    latency: { type: "string", default: String(DEFAULT_LATENCY_MS) },
    hosts: { type: "string", default: "8" },
    sizes: { type: "string" },
    "cpu-prof": { type: "boolean", default: false },
    only: { type: "string" },
    scale: { type: "boolean", default: false },
    "scale-sizes": { type: "string", default: "10000,30000,100000" },
    "scale-setups": { type: "string", default: "sqlite1,postgres2" },
    help: { type: "boolean", short: "h", default: false },
  },
});
/** The parts of a run, in the order they run; `--only` picks some. */
const PARTS = ["scale", "server", "instances", "cpu", "resources", "turnovers", "rss", "cli", "startup", "exits", "stall", "fetch", "backup", "channels"];
if (flags.help) {
  process.stdout.write(
    "usage: node bench/run.js [--full] [--json] [--latency MS] [--hosts 1-8] [--sizes 100,1000] [--cpu-prof]\n" +
      "  --full       add N = 5000 to the scale series\n" +
      "  --json       print the results document instead of the table\n" +
      "  --cpu-prof   write a .cpuprofile per child into bench/results/profiles/\n" +
      `  --only       run only these parts, comma-separated: ${PARTS.join(",")}\n` +
      "  --scale      instead, the scale series: 10,000 to 100,000 calendars on 64 hosts at 100 ms, SQLite with one\n" +
      "               calsync serve and PostgreSQL with two, against the fetch floor (about an hour; not in CI)\n" +
      "  --scale-sizes N,N,…  the series' sizes (default 10000,30000,100000; e.g. 1000,3000 for a smoke run)\n" +
      "  --scale-setups …     which set-ups: sqlite1 (SQLite, one serve), postgres2 (PostgreSQL, two); default both\n",
  );
  process.exit(0);
}
if (!existsSync(new URL("../dist/engine/sync.js", HERE))) {
  process.stderr.write("bench: dist/ is missing: run `npm run build` (or `npm run bench`, which builds first)\n");
  process.exit(1);
}

const only = flags.only ? flags.only.split(",") : PARTS;
for (const part of only) if (!PARTS.includes(part)) usage(`--only: unknown part "${part}" (${PARTS.join(", ")})`);
const runs = (part) => only.includes(part);
const latencyMs = positiveInt(flags.latency, "--latency", 0);
const hosts = positiveInt(flags.hosts, "--hosts", 1);
if (hosts > 8) usage("--hosts must be 1 to 8 (loopback addresses 127.0.0.1 … 127.0.0.8)");
const sizes = flags.sizes ? flags.sizes.split(",").map((n) => positiveInt(n, "--sizes", 1)) : flags.full ? [100, 1000, 5000] : [100, 1000];
const PROFILES_DIR = fileURLToPath(new URL("profiles/", RESULTS_DIR));
/** Node flags of a child: with --cpu-prof, a profile named after what the child measures. */
const childArgv = (label) => (flags["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${PROFILES_DIR}`, `--cpu-prof-name=${label}.cpuprofile`] : []);

if (flags.scale) {
  const scaleSizes = flags["scale-sizes"].split(",").map((n) => positiveInt(n, "--scale-sizes", 200));
  const { runScaleSeries } = await import("./scale-series.js");
  const scaleSetups = flags["scale-setups"].split(",");
  for (const id of scaleSetups) if (!["sqlite1", "postgres2"].includes(id)) usage(`--scale-setups: unknown set-up "${id}" (sqlite1, postgres2)`);
  const { results, table } = await runScaleSeries({ sizes: scaleSizes, setups: scaleSetups, latencyMs: SCALE_LATENCY_MS, hosts: SCALE_HOSTS, runChild, startHost, progress, resultsDir: RESULTS_DIR });
  process.stdout.write(flags.json ? `${JSON.stringify(results, null, 2)}\n` : `${table}\n`);
  progress("wrote bench/results/scale.json");
  process.exit(results.failedChecks.length > 0 ? 1 : 0);
}

const startedAt = new Date().toISOString();
const t0 = performance.now();
// Only the parts before the CLI rows use the 40 ms host: not started when none of them runs.
const host = only.some((part) => ["scale", "server", "instances", "cpu", "resources", "rss"].includes(part)) ? await startHost({ hosts, latencyMs }) : { origins: [], close: async () => {} };
const scale = [];
let server;
let instances;
let cpu;
let resources;
let turnovers;
let cliSync;
const rss = [];
try {
  for (const n of runs("scale") ? sizes : []) {
    const job = { n, origins: host.origins, set: `n${n}` };
    // One scale run per N costs about four floors; bound each child by that, generously.
    const timeoutMs = 60_000 + n * (2 * latencyMs + 20);
    progress(`N=${n}: floor`);
    const floorBefore = await runChild("floor", job, timeoutMs, `floor-n${n}-before`);
    progress(`N=${n}: dry run, first sync, unchanged re-sync, changed re-sync`);
    const run = await runChild("scale", job, timeoutMs * 4, `scale-n${n}`);
    progress(`N=${n}: floor again`);
    const floorAfter = await runChild("floor", job, timeoutMs, `floor-n${n}-after`);
    scale.push({ n, floorBefore, floorAfter, run });
  }
  if (runs("server")) progress("server: 50 owners × 4 calendars");
  if (runs("server")) server = await runChild("server", { origins: host.origins, set: "srv" }, 180_000, "server");
  if (runs("instances")) progress("instances: 1 on SQLite, 1 and 2 on PostgreSQL, 50 owners × 4 calendars");
  if (runs("instances")) instances = await runChild("instances", { origins: host.origins, set: "inst" }, 300_000, "instances");
  if (runs("cpu")) progress("cpu: parse + diff + write without network");
  if (runs("cpu")) cpu = await runChild("cpu", { origins: host.origins }, 600_000, "cpu");
  if (runs("resources")) progress("resources: a direct stay's fresh check against one sync; availability and a list page of 500");
  if (runs("resources")) resources = await runChild("resources", { origins: host.origins, set: "res" }, 180_000, "resources");
  if (runs("turnovers")) progress("turnovers: 50 properties, 5,000 stays; the cleaning and owner feeds against the outbound feed");
  if (runs("turnovers")) turnovers = await runChild("turnovers", {}, 300_000, "turnovers");
  for (const n of runs("rss") ? [1000, 5000] : []) {
    progress(`rss: first sync of N=${n}`);
    rss.push(await runChild("rss", { n, origins: host.origins, set: `rss${n}` }, 60_000 + n * (2 * latencyMs + 20), `rss-n${n}`));
  }
} finally {
  await host.close();
}
if (runs("cli")) {
  // The issue's own set-up: 300 feeds at 100 ms, the CLI as a user starts it, beside the in-process sync.
  const slowHost = await startHost({ hosts, latencyMs: CLI_LATENCY_MS });
  try {
    progress(`cli: calsync sync --local (child process) against syncOwner and the floor, ${CLI_FEEDS} feeds at ${CLI_LATENCY_MS} ms`);
    cliSync = await runChild("cliSync", { n: CLI_FEEDS, origins: slowHost.origins, set: "cli" }, 600_000, "cli-sync");
  } finally {
    await slowHost.close();
  }
}
if (runs("startup")) progress("startup: calsync --help and owner list against node -e \"import('commander')\" on Node 20, 22 and 24");
const startup = runs("startup") ? await runChild("startup", {}, 600_000, "startup") : undefined;
if (runs("exits")) progress("exits: 50 runs each of conflicts, export and sync --local on Node 20, 22 and 24, every one exiting 0");
const exits = runs("exits") ? await runChild("exits", { runs: 50 }, 900_000, "exits") : undefined;
if (runs("stall")) progress("stall: /healthz while the server reads a 20,000-event feed and a dense series");
const stall = runs("stall") ? await runChild("stall", {}, 300_000, "stall") : undefined;
if (runs("fetch")) progress("fetch: fetchFeed against bare undici.request");
const fetchOverhead = runs("fetch") ? await runChild("fetch", {}, 120_000, "fetch") : undefined;
if (runs("backup")) progress("backup: /healthz while serve --backup-dir and calsync db backup copy a 1 GiB database");
const backup = runs("backup") ? await runChild("backup", {}, 900_000, "backup") : undefined;
if (runs("channels")) progress("channels: a read of a channel link against a read of nobody's; the channels answer of 5 links and 500 stays");
const channelReads = runs("channels") ? await runChild("channels", {}, 120_000, "channels") : undefined;

const results = buildResults({
  options: {
    latencyMs,
    hosts,
    concurrency: 8,
    perHost: 2,
    calendarsPerProperty: CALENDARS_PER_PROPERTY,
    sizes,
    full: flags.full,
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    platform: `${os.platform()} ${os.release()}`,
  },
  startedAt,
  durationS: (performance.now() - t0) / 1000,
  scale,
  server,
  instances,
  cpu,
  rss,
  startup,
  exits,
  stall,
  fetchOverhead,
  resources,
  cliSync,
  turnovers,
  channelReads,
  backup,
});
mkdirSync(RESULTS_DIR, { recursive: true });
writeFileSync(new URL("latest.json", RESULTS_DIR), `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(flags.json ? `${JSON.stringify(results, null, 2)}\n` : `${formatTable(results)}\n`);
progress("wrote bench/results/latest.json");
if (flags["cpu-prof"]) progress(`profiles in bench/results/profiles/: node bench/profile-top.js bench/results/profiles/cpu.cpuprofile`);
if (results.checks.failed.length > 0) process.exitCode = 1;

/** Forks bench/child.js for `task`; resolves with its result, rejects on error, exit or timeout. */
function runChild(task, config, timeoutMs, label) {
  return new Promise((resolve, reject) => {
    // The child's stdout goes to our stderr: stdout carries only the table or the JSON.
    const child = fork(fileURLToPath(new URL("child.js", HERE)), [task, JSON.stringify(config)], {
      execArgv: childArgv(label),
      stdio: ["ignore", 2, 2, "ipc"],
    });
    let answer;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`bench ${task} took longer than ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    child.on("message", (message) => (answer = message));
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (answer?.type === "result") resolve(answer.data);
      else reject(new Error(`bench ${task} failed (${signal ?? `exit ${code}`}): ${answer?.message ?? "no result"}`));
    });
  });
}

/** Forks the feed host and waits for its origins; `close()` stops it (killing it if it will not go). */
async function startHost(options) {
  const child = fork(fileURLToPath(new URL("feed-host.js", HERE)), [JSON.stringify(options)], { stdio: ["ignore", 2, 2, "ipc"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const origins = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("feed host did not start within 10 s")), 10_000);
    child.once("message", (message) => {
      clearTimeout(timer);
      if (message?.type === "ready") resolve(message.origins);
      else reject(new Error("feed host answered oddly"));
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`feed host exited (${code}) before listening`));
    });
  }).catch((error) => {
    child.kill("SIGKILL");
    throw error;
  });
  return {
    origins,
    async close() {
      if (child.connected) child.send({ type: "close" });
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function progress(line) {
  process.stderr.write(`bench: ${line}\n`);
}

function positiveInt(text, name, min) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) usage(`${name} must be an integer ≥ ${min}, got "${text}"`);
  return value;
}

function usage(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}
