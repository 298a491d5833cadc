// `calsync reservation add|update|cancel`: direct stays (CONTRACT §14), the bookings and blocks no channel
// knows of, on a calsync server or on this machine's database (see ../stays/open-backend.ts).
import { Command } from "@commander-js/extra-typings";
import type { DirectStayCreate, DirectStayResult, DirectStayUpdate } from "../../resource-types.js";
import { UsageError, type CliContext } from "../context.js";
import { jsonOption } from "../options.js";
import { writeJson, writeText } from "../output.js";
import { addWhereOptions, privateNetworksOption, refreshTimeoutOption, STAYS_EXIT_CODES } from "../stays/backend-options.js";
import type { PropertyNames, StaysBackend } from "../stays/backend.js";
import { parseNightDate } from "../stays/dates.js";
import { openStaysBackend } from "../stays/open-backend.js";
import { describeStay, warnNotRefreshed } from "../stays/print.js";

/** Builds the `reservation` command group. */
export function reservationCommand(context: CliContext) {
  const group = new Command("reservation").description("Put in, move and cancel direct stays: bookings and blocks no channel knows of");

  addWhereOptions(
    group
      .command("add")
      .description("Add a direct booking (or with --block, a block) after checking its nights are free on every channel")
      .requiredOption("--property <id>", "the property (id)")
      .requiredOption("--arrival <date>", "first night, YYYY-MM-DD", parseNightDate)
      .requiredOption("--departure <date>", "the morning the guest leaves, YYYY-MM-DD (exclusive)", parseNightDate)
      .option("--block", "the owner's block (own use, maintenance) rather than a guest's booking")
      .option("--summary <text>", "what the owner calls the stay (never in the outbound feed)")
      .option("--note <text>", "the owner's note (never in the outbound feed)")
      .option("--no-refresh", "check against the channels as last synced, without fetching them first")
      .addOption(jsonOption()),
  )
    .addOption(privateNetworksOption())
    .addOption(refreshTimeoutOption())
    .addHelpText("after", `${STAYS_EXIT_CODES}\n\nExample:\n  calsync reservation add --property prp_… --arrival 2027-03-12 --departure 2027-03-15 --summary "Ana (phone)"`)
    .action(async (options) => {
      if (options.departure <= options.arrival) throw new UsageError("--departure must be after --arrival");
      const stay: DirectStayCreate = { kind: options.block ? "block" : "booking", arrival: options.arrival, departure: options.departure };
      if (options.summary !== undefined) stay.summary = options.summary;
      if (options.note !== undefined) stay.note = options.note;
      if (!options.refresh) stay.refresh = false;
      const backend = await openStaysBackend(options, context);
      const created = await backend.create(options.property, stay);
      const names = await namesFor(backend, created, options.json);
      warnNotRefreshed(context, created.warnings, names);
      if (options.json) return writeJson(context, created);
      writeText(context, `Added a ${describeStay(created, names)}`);
    });

  addWhereOptions(
    group
      .command("update")
      .description("Move or rename a direct stay; new nights are checked as `add` checks them")
      .argument("<id>", "the direct stay (reservation id)")
      .option("--arrival <date>", "new first night, YYYY-MM-DD", parseNightDate)
      .option("--departure <date>", "new departure, YYYY-MM-DD (exclusive)", parseNightDate)
      .option("--summary <text>", "new summary")
      .option("--note <text>", "new note")
      .addOption(jsonOption()),
  )
    .addOption(privateNetworksOption())
    .addOption(refreshTimeoutOption())
    .addHelpText("after", STAYS_EXIT_CODES)
    .action(async (id, options) => {
      const changes: DirectStayUpdate = {};
      for (const field of ["arrival", "departure", "summary", "note"] as const) {
        if (options[field] !== undefined) changes[field] = options[field];
      }
      if (Object.keys(changes).length === 0) throw new UsageError("nothing to change: give --arrival, --departure, --summary or --note");
      if (changes.arrival && changes.departure && changes.departure <= changes.arrival) {
        throw new UsageError("--departure must be after --arrival");
      }
      const backend = await openStaysBackend(options, context);
      const updated = await backend.update(id, changes);
      const names = await namesFor(backend, updated, options.json);
      warnNotRefreshed(context, updated.warnings, names);
      if (options.json) return writeJson(context, updated);
      writeText(context, `Updated the ${describeStay(updated, names)}`);
    });

  addWhereOptions(
    group
      .command("cancel")
      .description("Cancel a direct stay: its nights are free again")
      .argument("<id>", "the direct stay (reservation id)")
      .addOption(jsonOption()),
  )
    .addHelpText("after", STAYS_EXIT_CODES)
    .action(async (id, options) => {
      const backend = await openStaysBackend(options, context);
      const cancelled = await backend.cancel(id);
      if (options.json) return writeJson(context, cancelled);
      writeText(context, `Cancelled the ${describeStay(cancelled, await backend.names(cancelled.propertyId))}`);
    });

  return group;
}

// The names a message needs: for the line printed without --json, and for warnings, which stderr has either way.
async function namesFor(backend: StaysBackend, stay: DirectStayResult, json: boolean | undefined): Promise<PropertyNames | undefined> {
  if (json && !stay.warnings?.length) return undefined;
  return backend.names(stay.propertyId);
}
