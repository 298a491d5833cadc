// The sync as a user runs it: `calsync sync --local` as a child process, start-up and exit included,
// beside the same sync in-process (`syncOwner`) and the floor (plain fetch under the same limits), all
// against one feed host (run.js starts it at 100 ms latency) and interleaved round by round, so a busy
// machine slows each alike. Each round seeds two fresh stores (one per form) with the same N feeds:
// a first sync (all created), then an unchanged re-sync (all 304). The child's CPU comes from the
// shell's `times` (user + system of its children), start-up included.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { syncOwner } from "../dist/engine/sync.js";
import { round, seedOwner, tempStore, timed, totals } from "./common.js";
import { feedUrl } from "./feed-host.js";
import { EVENTS_PER_FEED, WARM_UP_FEEDS } from "./feeds.js";
import { measureFloor } from "./floor.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = fileURLToPath(new URL("../bin/calsync.js", import.meta.url));

/** `rounds` rounds of floor, in-process and CLI first syncs and re-syncs of `n` feeds of `set`; medians and ratios. */
export async function runCliSync({ n, origins, set, rounds = 2 }) {
  const urls = Array.from({ length: n }, (_, index) => feedUrl(origins, set, index));
  await measureFloor(Array.from({ length: WARM_UP_FEEDS }, (_, index) => feedUrl(origins, `${set}-warm`, index)));
  const samples = { floor: [], inFirst: [], inResync: [], cliFirst: [], cliResync: [] };
  const checks = [];
  for (let r = 0; r < rounds; r++) {
    const inProcess = await tempStore();
    const cli = await tempStore();
    try {
      const a = await seedOwner(inProcess.store, { name: "Owner", origins, set, count: n });
      await seedOwner(cli.store, { name: "Owner", origins, set, count: n });
      const local = () => timed(() => syncOwner({ store: inProcess.store, ownerId: a.ownerId, allowPrivateNetworks: true, trigger: "cli" }));
      const floor = await measureFloor(urls);
      checks.push({ ok: floor.failures === 0, what: `round ${r + 1}: every floor fetch answered 200` });
      samples.floor.push({ ms: floor.ms });
      const inFirst = await local();
      const cliFirst = await runCli(cli.store.path);
      const inResync = await local();
      const cliResync = await runCli(cli.store.path);
      samples.floor.push({ ms: (await measureFloor(urls)).ms });
      samples.inFirst.push(inFirst);
      samples.inResync.push(inResync);
      samples.cliFirst.push(cliFirst);
      samples.cliResync.push(cliResync);
      const created = (t) => totals(t.value).created === n * EVENTS_PER_FEED && t.value.failed === 0;
      const unchanged = (t) => totals(t.value).changedCalendars === 0 && t.value.failed === 0;
      checks.push(
        { ok: created(inFirst) && created(cliFirst), what: `round ${r + 1}: both first syncs created every event` },
        { ok: unchanged(inResync) && unchanged(cliResync), what: `round ${r + 1}: both re-syncs changed nothing` },
      );
    } finally {
      await inProcess.dispose();
      await cli.dispose();
    }
  }
  const median = (list, key) => {
    const sorted = list.map((x) => x[key]).sort((x, y) => x - y);
    return sorted[Math.floor((sorted.length - 1) / 2)];
  };
  const floorMs = median(samples.floor, "ms");
  const row = (list) => ({
    ms: round(median(list, "ms"), 1),
    ratio: round(median(list, "ms") / floorMs, 3),
    cpuMsPerCalendar: round(median(list, "cpuMs") / n, 3),
  });
  return {
    n,
    rounds,
    floorMs: round(floorMs, 1),
    inProcess: { first: row(samples.inFirst), resync: row(samples.inResync) },
    cli: { first: row(samples.cliFirst), resync: row(samples.cliResync) },
    checks,
  };
}

/** `calsync sync --local --json` on `db` to its exit: wall ms from spawn, the child's CPU ms, its answer. */
function runCli(db) {
  // `times` prints the shell's own and then its children's user and system time, e.g. "0m0.512s 0m0.061s".
  const script = 'node "$@"; rc=$?; times >&2; exit $rc';
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn("bash", ["-c", script, "bash", BIN, "sync", "--local", "--json", "--allow-private-networks", "--db", db], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - t0;
      const children = err.trim().split("\n").at(-1) ?? "";
      const secs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(([, m, s]) => Number(m) * 60 + Number(s));
      if (code !== 0 || secs.length !== 2) return reject(new Error(`calsync sync --local exited ${code}: ${err.slice(-500)}`));
      try {
        resolve({ ms, cpuMs: (secs[0] + secs[1]) * 1000, value: JSON.parse(out) });
      } catch (error) {
        reject(error);
      }
    });
  });
}
