// The file piscina loads in each parse worker. piscina tries require() first, and on Node ≥ 20.19 require()
// of an ES module loads it synchronously: a pool closed while a worker was in that load (a server stopped
// right after its first sync) aborted the whole process with V8's fatal "IsGraphAsync … instantiated
// module". From this CommonJS file the worker loads parse-worker.js with import(), which termination
// abandons safely.
import type { ParseTask } from "./parse-worker.js" with { "resolution-mode": "import" };
import type { PackedParseResult, PackedReading } from "./parse-transfer.js" with { "resolution-mode": "import" };

let worker: Promise<typeof import("./parse-worker.js", { with: { "resolution-mode": "import" } })> | undefined;

/** Runs parse-worker.js's task (loaded on the first one). */
async function parseTask(task: ParseTask): Promise<PackedParseResult | PackedReading> {
  worker ??= import("./parse-worker.js");
  return (await worker).default(task);
}

export = parseTask;
