// Entry of bin/calsync.js: wires the process to run().
import { ignoreBrokenPipe } from "./broken-pipe.js";
import { run } from "./run.js";

/** Runs the CLI on this process's arguments and sets its exit code. */
export async function main(): Promise<void> {
  ignoreBrokenPipe(process.stdout);
  ignoreBrokenPipe(process.stderr);
  process.exitCode = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
}
