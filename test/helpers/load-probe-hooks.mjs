// Loader hook of load-probe.mjs: notes each ES module (and CommonJS entry reached by import) as it loads.
import { appendFileSync } from "node:fs";

export async function load(url, context, nextLoad) {
  appendFileSync(process.env.CALSYNC_LOAD_PROBE, `${url}\n`);
  return nextLoad(url, context);
}
