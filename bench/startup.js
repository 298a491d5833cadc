// CLI start-up: `calsync --help` and `calsync owner list` (a database with one owner) against the floor
// of any commander CLI, `node -e "import('commander')"`, each a fresh process, runs interleaved so
// that a busy machine slows all three alike; medians of wall time from spawn to exit.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { percentile, round, tempStore } from "./common.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = fileURLToPath(new URL("../bin/calsync.js", import.meta.url));

/** Times `runs` starts of each command after `warmUp` untimed rounds (the OS file cache). */
export async function runStartup({ runs = 15, warmUp = 2 } = {}) {
  const { store, dispose } = await tempStore();
  const db = store.path;
  try {
    await store.createOwner("Ann");
    const commands = {
      baseline: ["-e", "import('commander')"],
      help: [BIN, "--help"],
      ownerList: [BIN, "owner", "list", "--db", db],
    };
    const times = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
    const failures = [];
    for (let i = 0; i < warmUp + runs; i++) {
      for (const [name, args] of Object.entries(commands)) {
        const { ms, code } = await timeProcess(args);
        if (code !== 0) failures.push(`${name} exited ${code}`);
        if (i >= warmUp) times[name].push(ms);
      }
    }
    const median = (name) => round(percentile(times[name], 50), 1);
    const baselineMs = median("baseline");
    return {
      runs,
      baselineMs,
      help: { ms: median("help"), ratio: round(median("help") / baselineMs, 3) },
      ownerList: { ms: median("ownerList"), ratio: round(median("ownerList") / baselineMs, 3) },
      checks: [{ ok: failures.length === 0, what: `every start-up run exited 0${failures.length ? ` (${failures[0]})` : ""}` }],
    };
  } finally {
    await dispose();
  }
}

/** Wall milliseconds from spawning `node …args` to its exit, output discarded. */
function timeProcess(args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: "ignore", env: { PATH: process.env.PATH ?? "" } });
    child.on("error", reject);
    child.on("exit", (code) => resolve({ ms: performance.now() - t0, code }));
  });
}
