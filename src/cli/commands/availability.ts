// `calsync availability`: which nights of a property are free (CONTRACT §14), as month grids for people
// or the Availability document with --json, from a calsync server or this machine's database.
import { Command } from "@commander-js/extra-typings";
import { UsageError, type CliContext } from "../context.js";
import { jsonOption } from "../options.js";
import { plural, stdoutPaint, writeJson, writeText } from "../output.js";
import { addWhereOptions, STAYS_EXIT_CODES } from "../stays/backend-options.js";
import { parseNightDate } from "../stays/dates.js";
import { renderMonthGrids } from "../stays/month-grid.js";
import { openStaysBackend } from "../stays/open-backend.js";

/** Builds the `availability` command. */
export function availabilityCommand(context: CliContext) {
  return addWhereOptions(
    new Command("availability")
      .description("Show which nights of a property are free, on every calendar (bookings, blocks, direct stays)")
      .requiredOption("--property <id>", "the property (id)")
      .option("--from <date>", "first night, YYYY-MM-DD (default: today at the property)", parseNightDate)
      .option("--to <date>", "the day after the last night, YYYY-MM-DD (default: a year after --from)", parseNightDate)
      .addOption(jsonOption()),
  )
    .addHelpText("after", `${STAYS_EXIT_CODES}\n\nExample:\n  calsync availability --property prp_… --from 2027-03-01 --to 2027-05-01`)
    .action(async (options) => {
      if (options.from && options.to && options.to <= options.from) throw new UsageError("--to must be after --from");
      const backend = await openStaysBackend(options, context);
      const availability = await backend.availability(options.property, { from: options.from, to: options.to });
      if (options.json) return writeJson(context, availability);
      const paint = stdoutPaint(context);
      const width = (context.io.stdout as { columns?: number }).columns;
      const taken = availability.nights.filter((night) => !night.available).length;
      const total = availability.nights.length;
      const summary =
        `${availability.from} → ${availability.to}: ${plural(taken, "night", "nights")} taken, ${total - taken} free of ${total}` +
        (taken > 0 ? " (taken nights in [brackets])" : "");
      writeText(context, `${renderMonthGrids(availability.nights, { paint, width })}\n${summary}`);
    });
}
