// run(argv, io) → exit code: the whole CLI as a function, so tests run it in-process.
import { CommanderError } from "commander";
import { buildProgram } from "./program.js";
import { CliFailure, createContext, UsageError, type CliIO } from "./context.js";

/** Exit codes of CONTRACT §6. */
export const EXIT = { ok: 0, failure: 1, usage: 2, partial: 3, auth: 4, network: 5 } as const;

/** Runs the CLI with `argv` (without node and script) and resolves to the exit code. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  const context = createContext(io);
  const program = buildProgram(context);
  try {
    await program.parseAsync(argv, { from: "user" });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through exitOverride with code 0; every other commander error is usage.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof UsageError) {
      io.stderr.write(`error: ${error.message}\n(run 'calsync ${commandPath(argv)} --help' for usage)\n`);
      return EXIT.usage;
    }
    if (error instanceof CliFailure) {
      io.stderr.write(`error: ${error.message}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`error: ${message}\n`);
    return EXIT.failure;
  } finally {
    context.close();
  }
}

function commandPath(argv: string[]): string {
  const words = [];
  for (const word of argv) {
    if (word.startsWith("-")) break;
    words.push(word);
    if (words.length === 2) break;
  }
  return words.join(" ") || "";
}
