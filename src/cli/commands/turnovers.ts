// `calsync turnovers`: when guests leave and who arrives next (CONTRACT §18), as a table for people or the
// Turnover list with --json, from a calsync server or this machine's database.
import { Command } from "@commander-js/extra-typings";
import { UsageError, type CliContext } from "../context.js";
import { jsonOption } from "../options.js";
import { plural, stdoutPaint, writeJson, writeText } from "../output.js";
import { addWhereOptions, STAYS_EXIT_CODES } from "../stays/backend-options.js";
import { parseNightDate } from "../stays/dates.js";
import { openStaysBackend } from "../stays/open-backend.js";
import { formatTable } from "../table.js";

/** Builds the `turnovers` command. */
export function turnoversCommand(context: CliContext) {
  return addWhereOptions(
    new Command("turnovers")
      .description("List turnovers: departures with their check-out time and the next arrival, same-day and tight ones marked")
      .option("--property <id>", "only this property (default: every property of the owner)")
      .option("--from <date>", "first date, YYYY-MM-DD (default: today at each property)", parseNightDate)
      .option("--to <date>", "the day after the last date, YYYY-MM-DD (default: 30 days after --from)", parseNightDate)
      .addOption(jsonOption()),
  )
    .addHelpText("after", `${STAYS_EXIT_CODES}\n\nExample:\n  calsync turnovers --property prp_… --from 2027-03-01 --to 2027-04-01`)
    .action(async (options) => {
      if (options.from && options.to && options.to <= options.from) throw new UsageError("--to must be after --from");
      const backend = await openStaysBackend(options, context);
      const turnovers = await backend.turnovers({ propertyId: options.property, from: options.from, to: options.to });
      if (options.json) return writeJson(context, turnovers);
      if (turnovers.length === 0) return context.logger.info("No turnovers in that range.");
      const paint = stdoutPaint(context);
      const rows = turnovers.map((t) => [
        t.date,
        t.propertyId,
        t.checkOutTime,
        t.nextArrival ? `${t.nextArrival.date} ${t.nextArrival.checkInTime}` : paint("dim", "none booked"),
        [t.sameDay ? "same day" : "", t.tight ? paint("yellow", "tight") : ""].filter(Boolean).join(", "),
        t.departingReservationId,
      ]);
      const columns = [{ header: "DATE" }, { header: "PROPERTY" }, { header: "CHECK-OUT" }, { header: "NEXT ARRIVAL" }, { header: "FLAGS" }, { header: "DEPARTING" }];
      writeText(context, `${formatTable(columns, rows, paint)}\n${plural(turnovers.length, "turnover", "turnovers")}`);
    });
}
