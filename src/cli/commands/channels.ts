// `calsync channels`: what each channel has seen of a property's outbound feed (CONTRACT §17) — when it last
// read its link, its status and the nights it may still sell — from a calsync server or this machine's database.
import { Command } from "@commander-js/extra-typings";
import { nightRangesWords, readAgo, spanWords } from "../../channel-words.js";
import type { CliContext } from "../context.js";
import { jsonOption } from "../options.js";
import { stdoutPaint, writeJson, writeText } from "../output.js";
import { addWhereOptions, STAYS_EXIT_CODES } from "../stays/backend-options.js";
import type { PropertyChannels } from "../stays/backend.js";
import { openStaysBackend } from "../stays/open-backend.js";
import { formatTable, type Paint } from "../table.js";

const STATUS_COLOUR = { never: "red", stale: "red", behind: "yellow", current: "green" } as const;

/** Builds the `channels` command. */
export function channelsCommand(context: CliContext) {
  return addWhereOptions(
    new Command("channels")
      .description("Show when each channel last read a property's calendar link, and the nights it may still sell")
      .option("--property <id>", "one property (default: every property of the owner)")
      .addOption(jsonOption()),
  )
    .addHelpText(
      "after",
      `${STAYS_EXIT_CODES}\n\nStatus: never (the channel never read its link: two-way sync is not set up there), stale (no read for longer\n` +
        "than serve --channel-stale-after), behind (it may still sell nights taken elsewhere), current.\n" +
        "See docs/channels.md. Example:\n  calsync channels --property prp_…",
    )
    .action(async (options) => {
      const backend = await openStaysBackend(options, context);
      const properties = await backend.channels(options.property);
      if (options.json) {
        const data = properties.flatMap((p) => p.channels.map((c) => ({ propertyId: p.propertyId, propertyName: p.propertyName, ...c })));
        return writeJson(context, { data });
      }
      const paint = stdoutPaint(context);
      writeText(context, properties.map((p) => propertyTable(p, paint, new Date())).join("\n").trimEnd());
    });
}

function propertyTable(property: PropertyChannels, paint: Paint, now: Date): string {
  const title = `${property.propertyName} (${property.propertyId})`;
  if (property.channels.length === 0) return `${title}\n  no channel calendars: nothing reads its feed yet\n`;
  const rows = property.channels.map((c) => [
    c.source,
    readAgo(c.lastReadAt, now),
    paint(STATUS_COLOUR[c.status], c.status),
    c.usualIntervalSeconds === null ? "-" : `every ${spanWords(c.usualIntervalSeconds)}`,
    c.exposedNights.length === 0 ? "-" : nightRangesWords(c.exposedNights.map((n) => n.date)),
  ]);
  const columns = [{ header: "CHANNEL" }, { header: "LAST READ" }, { header: "STATUS" }, { header: "USUALLY" }, { header: "MAY STILL SELL" }];
  return `${title}\n${formatTable(columns, rows, paint)}`;
}
