// The commander program: global behaviour here, one file per command group under commands/.
import { Command, Option } from "@commander-js/extra-typings";
import { createRequire } from "node:module";
import { COMMANDS, type CommandEntry } from "./command-table.js";
import type { CliContext } from "./context.js";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

const GETTING_STARTED = `
First sync, on this machine:
  calsync owner add "Ann Smith"
  calsync property add "Sea View Loft" --timezone Europe/Lisbon
  calsync calendar test --url https://www.airbnb.com/calendar/ical/….ics
  calsync calendar add --property prp_… --url https://www.airbnb.com/calendar/ical/….ics
  calsync sync --local

Web dashboard for owners (same port as the API):
  calsync owner update own_… --email ann@example.com
  calsync serve
  calsync owner invite --owner own_…      # a one-time link where they choose a password

Environment: CALSYNC_DB (database file or postgres:// URL), CALSYNC_API_KEY and CALSYNC_BASE_URL (remote sync),
CALSYNC_ALLOW_PRIVATE_NETWORKS=1 (let feeds reach private addresses).`;

/**
 * Builds the program for one run of `argv`: the command it names from that command's module, every other
 * one as a stand-in that the help lists alike (command-table.ts), so a run loads one command's module, and
 * `calsync --help` none. Without `argv`, every command from its module (the whole program, for tests).
 */
export async function buildProgram(context: CliContext, argv?: readonly string[]): Promise<Command> {
  const program = new Command("calsync")
    .description("Keep rental booking calendars (Airbnb, Booking.com, Vrbo, …) in sync")
    .version(version)
    .showSuggestionAfterError()
    .addHelpText("after", GETTING_STARTED);
  const named = argv === undefined ? undefined : commandWord(argv);
  const commands = await Promise.all(
    COMMANDS.map((entry) => (argv === undefined || entry.name === named ? entry.load(context) : standIn(entry))),
  );
  for (const command of commands) program.addCommand(command);
  configure(program, context);
  return program;
}

// The command a run names: the first word that is not an option (the root's options take no value), or after
// `help` the command whose help is asked for. An unknown word or none names nothing: commander then answers
// from the stand-ins alone (help, usage errors, "Did you mean …?").
function commandWord(argv: readonly string[]): string | undefined {
  const words = argv.filter((word) => !word.startsWith("-"));
  return words[0] === "help" ? words[1] : words[0];
}

// Commander's help writes "[options]" after a command that has any option, hidden ones included.
function standIn(entry: CommandEntry): Command<any, any, any> {
  const command = new Command(entry.name).description(entry.description);
  if (entry.options) command.addOption(new Option("--stand-in").hideHelp());
  // Never run: commandWord() loads the module of any command commander would run.
  return command.action(() => {
    throw new Error(`calsync ${entry.name} ran without its module`);
  });
}

// Sub-commands added with addCommand() do not inherit these settings, so apply them to the whole tree.
function configure(command: Command<any, any, any>, context: CliContext, path = "calsync"): void {
  command
    .exitOverride()
    .configureOutput({
      writeOut: (text) => context.io.stdout.write(text),
      writeErr: (text) => context.io.stderr.write(text),
    })
    .showHelpAfterError(usageHint(path));
  for (const sub of command.commands) configure(sub as Command<any, any, any>, context, `${path} ${sub.name()}`);
}

/** The line printed under a usage error, pointing at the help of the command that was used. */
export function usageHint(path: string): string {
  return `(run '${path} --help' for usage)`;
}
