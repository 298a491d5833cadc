// `calsync demo`: the first thing a newcomer runs. Everything happens on loopback, in a temporary folder.
import { Command } from "@commander-js/extra-typings";
import { CliFailure, EXIT, type CliContext } from "../context.js";
import { jsonOption } from "../options.js";
import { writeJson, writeText } from "../output.js";

/** Exit code after Ctrl-C, as shells report a process ended by SIGINT. */
const EXIT_INTERRUPTED = 130;

/** Builds the `demo` command. */
export function demoCommand(context: CliContext) {
  return new Command("demo")
    .description("Run a complete sync end to end on bundled sample feeds (temporary database, loopback only)")
    .addOption(jsonOption())
    .option("--keep", "keep the temporary database and print where it is")
    .addHelpText(
      "after",
      "\nStarts a feed host serving demo/feeds/ (Airbnb, Booking.com, Vrbo and one broken feed) and a calsync\n" +
        "server on free loopback ports, syncs twice through the SDK (the second time after a feed changed),\n" +
        "prints what happened and cleans up. With --json: {\"first\": <Sync response>, \"second\": <Sync response>}.\n" +
        "The first sync answers 207 on purpose: the broken feed fails, the others are stored. Exit 0 when all\n" +
        "went as designed.",
    )
    .action(async (options) => {
      const { createNarrator, formatOutro } = await import("../demo/narrate.js");
      const { demoProblems } = await import("../demo/scenario.js");
      const started = performance.now();
      const interrupt = new AbortController();
      const onSignal = () => interrupt.abort(new Error("interrupted"));
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      let result;
      try {
        const { runDemo } = await import("../demo/run-demo.js");
        result = await runDemo(
          { keep: options.keep ?? false, signal: interrupt.signal },
          options.json ? {} : createNarrator(context),
        );
      } catch (error) {
        // Cleanup has run by now (runDemo's finally): say so rather than print an abort stack.
        if (interrupt.signal.aborted) {
          const files = options.keep ? "temporary files kept" : "temporary files deleted";
          throw new CliFailure(`demo interrupted; servers stopped, ${files}`, EXIT_INTERRUPTED);
        }
        throw error;
      } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      }

      const keptDir = options.keep ? result.dir : undefined;
      if (options.json) {
        writeJson(context, { first: result.first, second: result.second });
        if (keptDir) context.logger.info(`Kept the demo database in ${keptDir}`);
      } else {
        writeText(context, formatOutro({ seconds: (performance.now() - started) / 1000, keptDir }));
      }
      const problems = demoProblems(result.first, result.second);
      if (problems.length > 0) {
        throw new CliFailure(`the demo did not run as designed:\n  ${problems.join("\n  ")}`, EXIT.failure);
      }
    });
}
