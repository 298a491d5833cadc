// `calsync export`: a property's outbound feed, byte for byte what `GET /ical/<feedToken>.ics` serves.
import { Command } from "@commander-js/extra-typings";
import { writeFileSync } from "node:fs";
import { CALENDAR_SOURCES } from "../../types.js";
import { CliFailure, UsageError, type CliContext } from "../context.js";
import { dbOption, jsonOption } from "../options.js";
import { plural, writeJson, writeText } from "../output.js";
import { requireProperty } from "../require-property.js";

/** Builds the `export` command. */
export function exportCommand(context: CliContext) {
  return new Command("export")
    .description("Write a property's merged outbound feed (.ics) to a file or stdout, as the server serves it")
    .requiredOption("--property <id>", "property to export (see: calsync property list)")
    .option(
      "--exclude <sources>",
      `leave out these channels' reservations: ${CALENDAR_SOURCES.join(", ")} (comma-separated or repeated)`,
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option("--out <file>", "write the feed to this file instead of stdout")
    .addOption(jsonOption())
    .addOption(dbOption())
    .addHelpText(
      "after",
      '\nWith --json: {"propertyId", "exclude", "events", "etag", "out", "ics"} (ics: the feed itself).\n' +
        "Example:\n  calsync export --property prp_… --exclude airbnb --out loft.ics",
    )
    .action(async (options) => {
      const { parseExclude, renderPropertyFeed } = await import("../../server/property-feed.js");
      const exclude = parseExclude(options.exclude ?? []);
      if (!exclude.ok) {
        throw new UsageError(`--exclude: unknown source ${JSON.stringify(exclude.unknown)} (one of ${CALENDAR_SOURCES.join(", ")})`);
      }
      const store = await context.store(options.db);
      const property = await requireProperty(store, options.property);
      const feed = await renderPropertyFeed(store, property, exclude.sources);
      if (options.out !== undefined) {
        try {
          writeFileSync(options.out, feed.body);
        } catch (error) {
          throw new CliFailure(`cannot write ${options.out}: ${error instanceof Error ? error.message : String(error)}`, 1);
        }
      }
      if (options.json) {
        return writeJson(context, {
          propertyId: property.id,
          exclude: exclude.sources,
          events: feed.events,
          etag: feed.etag,
          out: options.out ?? null,
          ics: feed.body,
        });
      }
      // Without --out the feed is the data: nothing else may reach stdout.
      if (options.out === undefined) return void context.io.stdout.write(feed.body);
      const excluded = exclude.sources.length > 0 ? ` (without ${exclude.sources.join(", ")})` : "";
      writeText(context, `Wrote ${plural(feed.events, "event", "events")} of "${property.name}"${excluded} to ${options.out}.`);
    });
}
