// `calsync serve` keeps V8's young generation small (issue 40's memory), unless node was given a young-generation
// flag of its own, on its command line or in NODE_OPTIONS.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { youngGenerationGiven } from "../src/cli/young-generation.js";

const MODULE = fileURLToPath(new URL("../dist/cli/young-generation.js", import.meta.url));

// A node process that keeps its young generation small (or not), starts worker threads as serve's parse pool
// does, churns short-lived objects on its main thread and prints the young generation's size in MiB.
function youngGenerationAfterWorkers(keep: boolean): number {
  const script = `
    import v8 from "node:v8";
    import { Worker } from "node:worker_threads";
    import { keepYoungGenerationSmall } from ${JSON.stringify(MODULE)};
    if (${keep}) keepYoungGenerationSmall([], "");
    const churn = () => { let k = []; for (let i = 0; i < 2e6; i++) { k.push({ i, s: "x" + i }); if (k.length > 100000) k = []; } };
    churn();
    for (let j = 0; j < 2; j++) {
      const worker = new Worker("setTimeout(() => {}, 200)", { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
      await new Promise((resolve) => worker.once("online", resolve));
      await new Promise((resolve) => setTimeout(resolve, 20));
      churn();
    }
    const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
    console.log(young.space_size / 1048576);`;
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }).trim());
}

describe("a young-generation flag given to node", () => {
  it("is found on the command line and in NODE_OPTIONS, in either spelling", () => {
    expect(youngGenerationGiven(["--max-semi-space-size=16"])).toBe(true);
    expect(youngGenerationGiven([], "--enable-source-maps --max_semi_space_size=8")).toBe(true);
    expect(youngGenerationGiven(["--min-semi-space-size", "2"])).toBe(true);
    expect(youngGenerationGiven([], "--semi-space-growth-factor=4")).toBe(true);
  });

  it("is not read into other flags", () => {
    expect(youngGenerationGiven([])).toBe(false);
    expect(youngGenerationGiven(["--cpu-prof", "--max-old-space-size=512"], "--enable-source-maps")).toBe(false);
    expect(youngGenerationGiven([], "--max-semi-space-sizes=1")).toBe(false);
  });
});

describe("the young generation of calsync serve's main thread", () => {
  // Node 20 and 22 set V8's flags afresh as a worker starts, and the young generation then grows to 32 MiB
  // (Node 24 does not); the flag set again as each worker comes online keeps it within a few MiB.
  it("stays small after worker threads start", () => {
    const major = Number(process.versions.node.split(".")[0]);
    if (major < 24) expect(youngGenerationAfterWorkers(false)).toBeGreaterThanOrEqual(16);
    expect(youngGenerationAfterWorkers(true)).toBeLessThanOrEqual(8);
  });
});
