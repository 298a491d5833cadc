// `node bench/run.js --scale`: the scale series of issue 40. For each N, a SQLite file with one
// `calsync serve` and a PostgreSQL database with two, each against the fetch floor of the same limits
// (one floor process per instance, 16 fetches at once and 6 per host each, as serve's defaults),
// measured once per N and limit in the same run. The smallest N runs first, then the largest N on
// PostgreSQL (the target), then the rest, so a run cut short still holds the figures that matter.
// After every set-up the document so far is written to bench/results/scale.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { round } from "./common.js";
import { formatScale, scaleResults } from "./scale-report.js";

/** serve's fetch limits per instance (CONTRACT §4 defaults), which the floor keeps too. */
const LIMITS = { concurrency: 16, perHost: 6 };
const PER_OWNER = 200;
const SETUPS = { sqlite1: { store: "sqlite", instances: 1 }, postgres2: { store: "postgres", instances: 2 } };

/** Runs the series; `runChild`/`startHost`/`progress` are run.js's. Returns the results document. */
export async function runScaleSeries({ sizes, setups = Object.keys(SETUPS), latencyMs, hosts, runChild, startHost, progress, resultsDir }) {
  const sorted = [...sizes].sort((a, b) => a - b);
  const [least, most] = [sorted[0], sorted[sorted.length - 1]];
  let steps = [[least, "sqlite1"], [least, "postgres2"]];
  if (most !== least) steps.push([most, "postgres2"]);
  for (const n of sorted.slice(1, -1)) steps.push([n, "sqlite1"], [n, "postgres2"]);
  if (most !== least) steps.push([most, "sqlite1"]);
  steps = steps.filter(([, id]) => setups.includes(id));

  const profileDir = fileURLToPath(new URL("profiles/scale/", resultsDir));
  mkdirSync(profileDir, { recursive: true });
  const doc = { startedAt: new Date().toISOString(), options: { sizes: sorted, setups, latencyMs, hosts, limits: LIMITS, perOwner: PER_OWNER, node: process.version, cpus: os.cpus().length }, load: [], floors: {}, setups: [] };
  const write = () => writeFileSync(new URL("scale.json", resultsDir), `${JSON.stringify(scaleResults(doc), null, 2)}\n`);
  const host = await startHost({ hosts, latencyMs });
  try {
    for (const [n, id] of steps) {
      const { store, instances } = SETUPS[id];
      const set = `scale${n}`;
      const floorKey = `${n}x${instances}`;
      if (!doc.floors[floorKey]) {
        progress(`scale N=${n}: fetch floor of ${instances} × ${LIMITS.concurrency} fetches`);
        doc.load.push(load(`floor ${floorKey}`));
        doc.floors[floorKey] = await floor({ n, instances, origins: host.origins, set, runChild });
        write();
      }
      progress(`scale N=${n}: ${id} (seed, first round, unchanged round)`);
      doc.load.push(load(`${id} N=${n}`));
      const timeoutMs = 600_000 + n * 40;
      const result = await runChild("scaleSetup", { n, origins: host.origins, set, store, instances, perOwner: PER_OWNER, profileDir }, timeoutMs, `scale-${id}-n${n}`);
      doc.setups.push({ id, ...result });
      write();
      progress(`scale N=${n}: ${id} done: first ${result.rounds.first.ms} ms, unchanged ${result.rounds.unchanged.ms} ms, floor ${doc.floors[floorKey].ms} ms`);
    }
  } finally {
    await host.close();
  }
  doc.load.push(load("end"));
  doc.durationS = round((Date.now() - Date.parse(doc.startedAt)) / 1000, 0);
  const results = scaleResults(doc);
  writeFileSync(new URL("scale.json", resultsDir), `${JSON.stringify(results, null, 2)}\n`);
  return { results, table: formatScale(results) };
}

// One floor process per instance, at once, each over its instances' owners' feeds; the slower one's time.
async function floor({ n, instances, origins, set, runChild }) {
  const timeoutMs = 120_000 + n * 20;
  const parts = await Promise.all(
    Array.from({ length: instances }, (_, part) =>
      runChild("floor", { n, origins, set, parts: instances, part, perOwner: PER_OWNER, limits: LIMITS }, timeoutMs, `scale-floor-n${n}-${part}`),
    ),
  );
  return { ms: Math.max(...parts.map((p) => p.passesMs[0])), partsMs: parts.map((p) => p.passesMs[0]), failures: parts.reduce((sum, p) => sum + p.failures, 0) };
}

// The machine's load when a step starts: the figures come from a machine other helpers share.
function load(at) {
  let uptime = "";
  try {
    uptime = execFileSync("uptime", { encoding: "utf8" }).trim();
  } catch {}
  return { at, time: new Date().toISOString(), loadavg: os.loadavg().map((v) => round(v, 2)), uptime };
}
