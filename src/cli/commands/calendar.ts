// `calsync calendar add|list|remove`: the .ics feeds of a property, one per booking channel.
import { Command, Option } from "@commander-js/extra-typings";
import { channelName } from "../../channel-words.js";
import { maskUrl } from "../../engine/mask-url.js";
import type { Calendar } from "../../store/types.js";
import { CALENDAR_SOURCES } from "../../types.js";
import { CliFailure, EXIT, type CliContext } from "../context.js";
import { checkFeedUrl, dbOption, jsonOption, ownerOption, propertyOption } from "../options.js";
import { stdoutPaint, writeJson, writeText } from "../output.js";
import { FAILING_STREAK } from "../../engine/store-port.js";
import { formatTable, formatTime, type Paint } from "../table.js";
import { addCalendarTestCommand } from "./calendar-test.js";
import { requireProperty } from "../require-property.js";

/** The JSON shape of a calendar (CONTRACT §6, §8); the URL is masked, because feed URLs carry secrets. */
export function calendarJson(calendar: Calendar) {
  const { id, propertyId, source, consecutiveFailures, failingSince } = calendar;
  return { id, propertyId, source, url: maskUrl(calendar.url), consecutiveFailures, failingSince };
}

/** Builds the `calendar` command group. */
export function calendarCommand(context: CliContext) {
  const calendar = new Command("calendar").description("Test, add, list and remove the calendar feeds (.ics) of properties");

  calendar
    .command("add")
    .description("Add a channel's calendar feed (.ics export URL) to a property")
    .requiredOption("--property <id>", "property the feed belongs to (see: calsync property list)")
    .requiredOption("--url <url>", "the feed's export URL (http, https or webcal)")
    .addOption(
      new Option("--source <source>", "booking channel (default: detected from the URL's host)").choices(CALENDAR_SOURCES),
    )
    .addOption(jsonOption())
    .addOption(dbOption())
    .addHelpText(
      "after",
      "\nRefused (exit 1): a feed that is already a calendar of the property (URLs compared after normalising),\n" +
        "and calsync's own outbound feeds (/ical/<token>.ics). The same feed on another property is added with a warning.\n" +
        "Check a link first with: calsync calendar test --url URL",
    )
    .action(async (options) => {
      const url = checkFeedUrl(options.url);
      const store = await context.store(options.db);
      const property = await requireProperty(store, options.property);
      const { addCalendar } = await import("../../server/calendar-setup.js");
      const added = await addCalendar(store, { property, url, source: options.source });
      if (!added.ok) throw new CliFailure(added.refusal.message, EXIT.failure);
      for (const warning of added.warnings) context.logger.warn(warning);
      const created = added.calendar;
      if (options.json) return writeJson(context, calendarJson(created));
      writeText(context, `Added ${created.source} calendar ${created.id} to "${property.name}": ${maskUrl(created.url)}`);
      context.logger.info("Next: calsync sync --local");
    });

  addCalendarTestCommand(calendar, context);

  calendar
    .command("list")
    .description("List calendars with the outcome of their last sync (URLs masked)")
    .addOption(propertyOption())
    .addOption(ownerOption("only this owner's calendars (id or name; default: every owner)"))
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (options) => {
      const store = await context.store(options.db);
      const propertyId = options.property === undefined ? undefined : (await requireProperty(store, options.property)).id;
      const ownerId = options.owner === undefined ? undefined : (await context.owner(store, options.owner)).id;
      const calendars = await store.listCalendars({ ownerId, propertyId });
      if (options.json) return writeJson(context, calendars.map(calendarJson));
      if (calendars.length === 0) {
        return context.logger.info("No calendars yet. Add one with: calsync calendar add --property ID --url URL");
      }
      const names = new Map((await store.listProperties()).map((p) => [p.id, p.name]));
      const paint = stdoutPaint(context);
      const rows = calendars.map((c) => [
        c.id,
        names.get(c.propertyId) ?? c.propertyId,
        c.source,
        maskUrl(c.url),
        formatTime(c.lastSyncedAt),
        failingSince(c, paint),
        lastStatus(c, paint),
      ]);
      // The status goes last: a failure's message is the one long cell.
      const headers = ["ID", "PROPERTY", "SOURCE", "URL", "LAST SYNC", "FAILING SINCE", "STATUS"];
      writeText(context, formatTable(headers.map((header) => ({ header })), rows, paint));
    });

  calendar
    .command("remove")
    .description("Remove a calendar and its reservations")
    .argument("<id>", "calendar id (see: calsync calendar list)")
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (id, options) => {
      const store = await context.store(options.db);
      const removed = await store.getCalendar(id);
      if (!removed) throw new CliFailure(`no calendar "${id}" (see: calsync calendar list)`, 1);
      const property = await store.getProperty(removed.propertyId);
      await store.removeCalendar(id);
      if (options.json) return writeJson(context, calendarJson(removed));
      const named = removed.source !== "other" && removed.source !== "direct";
      const which = named ? `the ${channelName(removed.source)} calendar` : `a calendar (${removed.source})`;
      const of = property ? ` of ${JSON.stringify(property.name)}` : "";
      writeText(context, `Removed ${which}${of} and its reservations (${removed.id}).`);
    });

  return calendar;
}

// When the current run of failures began, and how long it is; "-" for a calendar that works.
function failingSince(calendar: Calendar, paint: Paint): string {
  if (calendar.failingSince === null) return "-";
  const streak = `${formatTime(calendar.failingSince)} (${calendar.consecutiveFailures}×)`;
  return calendar.consecutiveFailures >= FAILING_STREAK ? paint("red", streak) : streak;
}

function lastStatus(calendar: Calendar, paint: Paint): string {
  if (calendar.lastStatus === null) return paint("dim", "not synced yet");
  if (calendar.lastStatus === "success") return paint("green", "ok");
  return paint("red", `failed: ${calendar.lastErrorCode ?? "error"}: ${calendar.lastErrorMessage ?? ""}`.trimEnd());
}
