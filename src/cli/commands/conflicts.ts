// `calsync conflicts`: double bookings in the stored reservations, the same ones a sync reports.
import { Command } from "@commander-js/extra-typings";
import type { Conflict } from "../../types.js";
import type { CliContext } from "../context.js";
import { dbOption, jsonOption, ownerOption, propertyOption } from "../options.js";
import { plural, stdoutPaint, writeJson, writeText } from "../output.js";
import { formatTable } from "../table.js";
import { requireProperty } from "../require-property.js";

/** Builds the `conflicts` command. */
export function conflictsCommand(context: CliContext) {
  return new Command("conflicts")
    .description("List double bookings: nights sold on two or more calendars of a property (today and later)")
    .addOption(propertyOption())
    .addOption(ownerOption("only this owner's properties (id or name; default: every owner)"))
    .addOption(jsonOption())
    .addOption(dbOption())
    .addHelpText(
      "after",
      '\nWith --json: an array of {"propertyId", "propertyName", "from", "to", "reservations": [{"id", "source", "summary"}]}.\n' +
        "Reads what the last sync stored; run calsync sync first for the channels' latest state.",
    )
    .action(async (options) => {
      const store = await context.store(options.db);
      const property = options.property === undefined ? undefined : await requireProperty(store, options.property);
      const ownerId = options.owner === undefined ? undefined : (await context.owner(store, options.owner)).id;
      const properties = property ? [property] : await store.listProperties(ownerId);
      const { findPropertyConflicts } = await import("../../engine/conflicts.js");
      const { formatDate } = await import("../../engine/local-date.js");
      const conflicts = await findPropertyConflicts(
        async (id) => await store.propertyActiveBookings(id),
        properties.filter((p) => ownerId === undefined || p.ownerId === ownerId).map((p) => p.id),
        { now: new Date() },
      );
      if (options.json) return writeJson(context, conflicts);
      if (conflicts.length === 0) return context.logger.info("No double bookings: no night is sold on two calendars.");
      writeText(context, conflictTable(conflicts, context));
      context.logger.warn(`${plural(conflicts.length, "double booking", "double bookings")}: ${conflictAdvice(conflicts)}`);
    });
}

// A direct stay (CONTRACT §14) has no channel: it is cancelled here, with `calsync reservation cancel`.
function conflictAdvice(conflicts: Conflict[]): string {
  const direct = conflicts.some((c) => c.reservations.some((r) => r.source === "direct"));
  return direct
    ? "cancel or move one stay of each: a channel's on that channel, a direct stay with calsync reservation cancel."
    : "cancel or move one stay of each on its channel.";
}

// One row per reservation; property and nights only on a conflict's first row, so each reads as a group.
function conflictTable(conflicts: Conflict[], context: CliContext): string {
  const rows = conflicts.flatMap((conflict) =>
    conflict.reservations.map((r, index) => [
      index === 0 ? conflict.propertyName : "",
      index === 0 ? conflict.from : "",
      index === 0 ? conflict.to : "",
      index === 0 ? String(nights(conflict)) : "",
      r.source,
      r.summary,
      r.id,
    ]),
  );
  const columns = [
    { header: "PROPERTY" },
    { header: "FROM" },
    { header: "TO" },
    { header: "NIGHTS", align: "right" as const },
    { header: "SOURCE" },
    { header: "SUMMARY" },
    { header: "RESERVATION" },
  ];
  return formatTable(columns, rows, stdoutPaint(context));
}

// `to` is exclusive (the day after the last double-sold night), so the difference is the night count.
function nights(conflict: Conflict): number {
  return Math.round((Date.parse(`${conflict.to}T00:00:00Z`) - Date.parse(`${conflict.from}T00:00:00Z`)) / 86_400_000);
}
