// `calsync demo`: placeholder until the demo lands (issue 5).
import { Command } from "@commander-js/extra-typings";
import { CliFailure, type CliContext } from "../context.js";

/** Builds the `demo` command. */
export function demoCommand(_context: CliContext) {
  return new Command("demo").description("Run a complete sync end to end on sample feeds").action(() => {
    throw new CliFailure("the demo is not built yet", 1);
  });
}
