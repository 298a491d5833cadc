// `calsync serve` keeps V8's young generation at its starting size. Left to grow (to 16 MiB a semi-space on a
// machine with this much memory), it made up most of a serve's RSS beyond its live heap: 4,000 calendars synced
// by 20 owners peaked at 189 MiB with it growing and 155 MiB without, for 5 % more CPU (issue 40: 250 MiB per
// instance at 100,000 calendars). Only the command sets it, in its own process: an app embedding startServer
// keeps its own V8 settings.
import v8 from "node:v8";

/** The flag set at run time; `--max-semi-space-size` only works on node's command line. */
export const SMALL_YOUNG_GENERATION = "--semi-space-growth-factor=1";

/** Whether node was started with a flag of its own for the young generation (command line or NODE_OPTIONS). */
export function youngGenerationGiven(execArgv: readonly string[], nodeOptions = ""): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((flag) => /^--((max|min)[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor)(=|$)/.test(flag));
}

/**
 * Keeps the young generation small unless node was told otherwise; whether it did. Node sets V8's flags
 * afresh whenever a worker thread starts (the parse pool, the checkpoint, a backup), which put the main
 * thread's young generation back to growing to 32 MiB: the flag is set again each time a worker comes online.
 */
export function keepYoungGenerationSmall(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  if (youngGenerationGiven(execArgv, nodeOptions)) return false;
  const keep = () => v8.setFlagsFromString(SMALL_YOUNG_GENERATION);
  keep();
  process.on("worker", (worker) => worker.once("online", keep));
  return true;
}
