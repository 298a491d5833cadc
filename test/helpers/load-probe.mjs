// `node --import ./test/helpers/load-probe.mjs …`: at exit, appends every file the process loaded
// (ES modules through a loader hook, CommonJS from require.cache) to the file named by $CALSYNC_LOAD_PROBE.
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";

const out = process.env.CALSYNC_LOAD_PROBE;
if (out) {
  register("./load-probe-hooks.mjs", import.meta.url);
  const require = createRequire(import.meta.url);
  process.on("exit", () => appendFileSync(out, `${Object.keys(require.cache).join("\n")}\n`));
}
