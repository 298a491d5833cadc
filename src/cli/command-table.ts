// The top-level commands in `calsync --help` order: what the help lists for each, and where its module is.
// A run imports only the module of the command it names (program.ts); test/cli-help.test.ts checks each
// row against its module, so the help printed from this table is the help the modules would print.
import type { Command } from "@commander-js/extra-typings";
import type { CliContext } from "./context.js";

/** One top-level command, as the top-level help shows it, and its module. */
export interface CommandEntry {
  /** The word typed after `calsync`. */
  name: string;
  /** The command's description, word for word as its module sets it. */
  description: string;
  /** Whether the command has options of its own: the help then writes "[options]" after its name. */
  options: boolean;
  /** Imports the command's module and builds the command. */
  load(context: CliContext): Promise<Command<any, any, any>>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "sync",
    description: "Synchronise every calendar of an owner: on a calsync server, or here with --local",
    options: true,
    load: async (context) => (await import("./commands/sync.js")).syncCommand(context),
  },
  {
    name: "serve",
    description:
      "Serve the HTTP API (POST /api/v1/calendars/sync) and the owner dashboard (/) over the database (SQLite, or PostgreSQL for several instances)",
    options: true,
    load: async (context) => (await import("./commands/serve.js")).serveCommand(context),
  },
  {
    name: "owner",
    description: "Add, list and update owners (each has its own properties and API tokens); invite them to the dashboard",
    options: false,
    load: async (context) => (await import("./commands/owner.js")).ownerCommand(context),
  },
  {
    name: "token",
    description: "Create, list and revoke API tokens (for `calsync sync` and the HTTP API)",
    options: false,
    load: async (context) => (await import("./commands/token.js")).tokenCommand(context),
  },
  {
    name: "property",
    description: "Add, update, list and remove properties (rentals) and their time zone; print their feed URL",
    options: false,
    load: async (context) => (await import("./commands/property.js")).propertyCommand(context),
  },
  {
    name: "calendar",
    description: "Test, add, list and remove the calendar feeds (.ics) of properties",
    options: false,
    load: async (context) => (await import("./commands/calendar.js")).calendarCommand(context),
  },
  {
    name: "reservations",
    description: "List stored reservations (bookings and owner blocks), by property and arrival",
    options: true,
    load: async (context) => (await import("./commands/reservations.js")).reservationsCommand(context),
  },
  {
    name: "reservation",
    description: "Put in, move and cancel direct stays: bookings and blocks no channel knows of",
    options: false,
    load: async (context) => (await import("./commands/reservation.js")).reservationCommand(context),
  },
  {
    name: "availability",
    description: "Show which nights of a property are free, on every calendar (bookings, blocks, direct stays)",
    options: true,
    load: async (context) => (await import("./commands/availability.js")).availabilityCommand(context),
  },
  {
    name: "turnovers",
    description: "List turnovers: departures with their check-out time and the next arrival, same-day and tight ones marked",
    options: true,
    load: async (context) => (await import("./commands/turnovers.js")).turnoversCommand(context),
  },
  {
    name: "conflicts",
    description: "List double bookings: nights sold on two or more calendars of a property (today and later)",
    options: true,
    load: async (context) => (await import("./commands/conflicts.js")).conflictsCommand(context),
  },
  {
    name: "webhook",
    description: "Tell your own systems what changed: webhook endpoints and their deliveries",
    options: false,
    load: async (context) => (await import("./commands/webhook.js")).webhookCommand(context),
  },
  {
    name: "export",
    description: "Write a property's merged outbound feed (.ics) to a file or stdout, as the server serves it",
    options: true,
    load: async (context) => (await import("./commands/export.js")).exportCommand(context),
  },
  {
    name: "demo",
    description: "Run a complete sync end to end on bundled sample feeds (temporary database, loopback only)",
    options: true,
    load: async (context) => (await import("./commands/demo.js")).demoCommand(context),
  },
  {
    name: "db",
    description: "Database tools: copy a whole database (SQLite ↔ PostgreSQL), back up and restore a SQLite file",
    options: false,
    load: async (context) => (await import("./commands/db.js")).dbCommand(context),
  },
  {
    name: "channels",
    description: "Show when each channel last read a property's calendar link, and the nights it may still sell",
    options: true,
    load: async (context) => (await import("./commands/channels.js")).channelsCommand(context),
  },
];
