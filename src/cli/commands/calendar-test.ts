// `calsync calendar test`: fetch and read a feed as a sync would, before adding it. Opens no database.
import { Command, Option } from "@commander-js/extra-typings";
import type { FeedPreview } from "../../engine/feed-preview.js";
import { maskUrl } from "../../engine/mask-url.js";
import { CALENDAR_SOURCES } from "../../types.js";
import { CliFailure, EXIT, type CliContext } from "../context.js";
import { allowPrivateNetworksOption, checkFeedUrl, jsonOption, privateNetworksAllowed, timeoutOption } from "../options.js";
import { plural, writeJson, writeText } from "../output.js";

/** Adds `test` to the `calendar` command group. */
export function addCalendarTestCommand(calendar: Command<any, any, any>, context: CliContext): void {
  calendar
    .command("test")
    .description("Fetch and read a feed as a sync would, store nothing, and show what it would import")
    .requiredOption("--url <url>", "the feed's export URL (http, https or webcal)")
    .addOption(
      new Option("--source <source>", "booking channel (default: detected from the URL's host)").choices(CALENDAR_SOURCES),
    )
    .addOption(jsonOption())
    .addOption(timeoutOption("milliseconds to wait for the feed (default 20000)"))
    .addOption(allowPrivateNetworksOption())
    .addHelpText(
      "after",
      [
        "",
        "Opens no database. Exit codes: 0 the feed is readable, 3 it is not (the sync error code and message",
        "on stderr), 2 usage error.",
        'With --json: {"source", "bookings", "blocks", "firstNight", "lastNight", "warnings"} when readable,',
        '{"source", "error": {"code", "message"}} when not.',
        "",
        "Example:",
        "  calsync calendar test --url 'https://www.airbnb.com/calendar/ical/123.ics?s=…'",
      ].join("\n"),
    )
    .action(async (options) => {
      const url = checkFeedUrl(options.url);
      const { previewFeed } = await import("../../engine/feed-preview.js");
      const result = await previewFeed(url, {
        source: options.source,
        timeoutMs: options.timeout,
        allowPrivateNetworks: privateNetworksAllowed(options.allowPrivateNetworks, context.io.env),
      });
      if (!result.ok) {
        if (options.json) writeJson(context, { source: result.source, error: result.error });
        throw new CliFailure(`${result.error.code}: ${result.error.message}`, EXIT.partial);
      }
      const { preview } = result;
      if (options.json) return writeJson(context, preview);
      writeText(context, formatPreview(preview, maskUrl(url), options.source === undefined));
      context.logger.success("Readable. Add it with: calsync calendar add --property ID --url URL");
    });
}

function formatPreview(preview: FeedPreview, maskedUrl: string, detected: boolean): string {
  const rows: Array<[string, string]> = [
    ["feed", maskedUrl],
    ["source", detected ? `${preview.source} (detected from the host; --source to set it)` : preview.source],
    ["bookings", String(preview.bookings)],
    ["blocks", String(preview.blocks)],
    ["first night", preview.firstNight ?? "none"],
    ["last night", preview.lastNight ?? "none"],
    ["warnings", preview.warnings.length === 0 ? "none" : plural(preview.warnings.length, "warning", "warnings")],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`);
  for (const warning of preview.warnings) lines.push(`  ${warning.code}${warning.uid ? ` (${warning.uid})` : ""}: ${warning.message}`);
  return lines.join("\n");
}
