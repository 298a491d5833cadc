// The commander program: global behaviour here, one file per command group under commands/.
import { Command } from "@commander-js/extra-typings";
import { createRequire } from "node:module";
import type { CliContext } from "./context.js";
import { availabilityCommand } from "./commands/availability.js";
import { calendarCommand } from "./commands/calendar.js";
import { conflictsCommand } from "./commands/conflicts.js";
import { dbCommand } from "./commands/db.js";
import { demoCommand } from "./commands/demo.js";
import { exportCommand } from "./commands/export.js";
import { ownerCommand } from "./commands/owner.js";
import { propertyCommand } from "./commands/property.js";
import { reservationCommand } from "./commands/reservation.js";
import { reservationsCommand } from "./commands/reservations.js";
import { serveCommand } from "./commands/serve.js";
import { syncCommand } from "./commands/sync.js";
import { tokenCommand } from "./commands/token.js";
import { webhookCommand } from "./commands/webhook.js";

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

/** Builds the whole program for one run; commands write through `context`. */
export function buildProgram(context: CliContext): Command {
  const program = new Command("calsync")
    .description("Keep rental booking calendars (Airbnb, Booking.com, Vrbo, …) in sync")
    .version(version)
    .showSuggestionAfterError()
    .addHelpText("after", GETTING_STARTED);
  const commands = [
    syncCommand(context),
    serveCommand(context),
    ownerCommand(context),
    tokenCommand(context),
    propertyCommand(context),
    calendarCommand(context),
    reservationsCommand(context),
    reservationCommand(context),
    availabilityCommand(context),
    conflictsCommand(context),
    webhookCommand(context),
    exportCommand(context),
    demoCommand(context),
    dbCommand(context),
  ];
  for (const command of commands) program.addCommand(command);
  configure(program, context);
  return program;
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
