// CLI start-up on every maintained Node line: `calsync --help` and `calsync owner list` (a database with
// one owner) against the floor of any commander CLI on the same line, `node -e "import('commander')"`.
// Each a fresh process, all runs interleaved so that a busy machine slows every line alike; medians of
// wall time from spawn to exit. From Node 22.1 the launcher's compile cache is warm after the warm-up.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { percentile, round, tempStore } from "./common.js";
import { nodeLines } from "./node-lines.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = fileURLToPath(new URL("../bin/calsync.js", import.meta.url));

/** Times `runs` starts of each command on each line after `warmUp` untimed rounds (OS file and compile caches). */
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
    const lines = nodeLines();
    const times = new Map(lines.flatMap(({ line }) => Object.keys(commands).map((name) => [`${line}:${name}`, []])));
    const failures = [];
    for (let i = 0; i < warmUp + runs; i++) {
      for (const { line, node } of lines) {
        for (const [name, args] of Object.entries(commands)) {
          const { ms, code } = await timeProcess(node, args);
          if (code !== 0) failures.push(`Node ${line} ${name} exited ${code}`);
          if (i >= warmUp) times.get(`${line}:${name}`).push(ms);
        }
      }
    }
    const byLine = lines.map(({ line, node }) => {
      const median = (name) => round(percentile(times.get(`${line}:${name}`), 50), 1);
      const baselineMs = median("baseline");
      const against = (name) => ({ ms: median(name), ratio: round(median(name) / baselineMs, 3) });
      return { line, node, baselineMs, help: against("help"), ownerList: against("ownerList") };
    });
    return {
      runs,
      lines: byLine,
      checks: [{ ok: failures.length === 0, what: `every start-up run exited 0${failures.length ? ` (${failures[0]})` : ""}` }],
    };
  } finally {
    await dispose();
  }
}

/** Wall milliseconds from spawning `node …args` to its exit, output discarded. */
function timeProcess(node, args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(node, args, { cwd: ROOT, stdio: "ignore", env: { PATH: process.env.PATH ?? "" } });
    child.on("error", reject);
    child.on("exit", (code) => resolve({ ms: performance.now() - t0, code }));
  });
}
