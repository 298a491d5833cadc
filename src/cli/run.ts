// run(argv, io) → exit code: the whole CLI as a function, so tests run it in-process.
import type { Command } from "@commander-js/extra-typings";
import { CommanderError } from "commander";
import { buildProgram, usageHint } from "./program.js";
import { CliFailure, createContext, EXIT, UsageError, type CliIO } from "./context.js";
import { forTerminal } from "./terminal-text.js";

export { EXIT } from "./context.js";

/** Runs the CLI with `argv` (without node and script) and resolves to the exit code. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  const context = createContext(io);
  const program = await buildProgram(context, argv);
  try {
    await program.parseAsync(argv, { from: "user" });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through exitOverride with code 0; every other commander error is usage.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof UsageError) {
      io.stderr.write(forTerminal(`error: ${error.message}\n${usageHint(commandPath(program, argv))}\n`));
      return EXIT.usage;
    }
    if (error instanceof CliFailure) {
      io.stderr.write(forTerminal(`error: ${error.message}\n`));
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(forTerminal(`error: ${message}\n`));
    return EXIT.failure;
  } finally {
    await context.close();
  }
}

// "calsync token create" for `token create --name x`: the words of argv that name (sub)commands.
function commandPath(program: Command<any, any, any>, argv: string[]): string {
  const words = ["calsync"];
  let command = program;
  for (const word of argv) {
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    words.push(word);
    command = sub as Command<any, any, any>;
  }
  return words.join(" ");
}
