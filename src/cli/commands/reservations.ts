// `calsync reservations`: what the last syncs stored, bookings and owner blocks alike.
import { Command, Option } from "@commander-js/extra-typings";
import type { ReservationRow } from "../../store/types.js";
import type { CliContext } from "../context.js";
import { dbOption, jsonOption, ownerOption, propertyOption } from "../options.js";
import { stdoutPaint, writeJson, writeText } from "../output.js";
import { formatTable } from "../table.js";
import { requireProperty } from "../require-property.js";

/**
 * The JSON shape of a reservation (CONTRACT §6, §8): `start`/`end` as the feed gave them (`YYYY-MM-DD` for
 * all-day events, else ISO-8601 UTC), `arrival`/`departure` the nights at the property (`YYYY-MM-DD`),
 * `echoOf` the reservation a channel's echo repeats (null for any other).
 */
export function reservationJson(row: ReservationRow) {
  const { id, propertyId, calendarId, source, uid, kind, status, start, end, arrival, departure, summary, echoOf } = row;
  return { id, propertyId, calendarId, source, uid, kind, status, start, end, arrival, departure, summary, echoOf };
}

/** Builds the `reservations` command. */
export function reservationsCommand(context: CliContext) {
  return new Command("reservations")
    .description("List stored reservations (bookings and owner blocks), by property and arrival")
    .addOption(propertyOption())
    .addOption(ownerOption("only this owner's reservations (id or name; default: every owner)"))
    .addOption(new Option("--status <status>", "only active or only cancelled reservations").choices(["active", "cancelled"] as const))
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (options) => {
      const store = await context.store(options.db);
      const propertyId = options.property === undefined ? undefined : (await requireProperty(store, options.property)).id;
      const ownerId = options.owner === undefined ? undefined : (await context.owner(store, options.owner)).id;
      const rows = await store.listReservations({ propertyId, ownerId, status: options.status });
      if (options.json) return writeJson(context, rows.map(reservationJson));
      if (rows.length === 0) return context.logger.info("No reservations stored. Fetch them with: calsync sync --local");
      const names = new Map((await store.listProperties()).map((p) => [p.id, p.name]));
      const paint = stdoutPaint(context);
      const table = rows.map((r) => [
        names.get(r.propertyId) ?? r.propertyId,
        r.source,
        r.kind,
        r.status === "active" ? r.status : paint("dim", r.status),
        r.arrival,
        r.departure,
        // An echo is a block the channel made from calsync's own feed: say whose nights it repeats.
        r.echoOf ? `${r.summary} ${paint("dim", `(echo of ${r.echoOf})`)}` : r.summary,
      ]);
      // Nights, as the property counts them: a timed stay's instants stay in --json (start, end).
      const headers = ["PROPERTY", "SOURCE", "KIND", "STATUS", "ARRIVAL", "DEPARTURE", "SUMMARY"];
      writeText(context, formatTable(headers.map((header) => ({ header })), table, paint));
    });
}
