// `calsync property cleaning`, `calsync owner cleaning` and `calsync owner calendar` (CONTRACT §18): the links of the
// private feeds, made on first ask, rotated or revoked like the outbound feed's (`property feed`).
import type { Command } from "@commander-js/extra-typings";
import { feedBaseUrl } from "../base-url.js";
import type { PrivateFeed } from "../../store/types.js";
import { CliFailure, UsageError, type CliContext } from "../context.js";
import { dbOption, jsonOption, ownerOption } from "../options.js";
import { writeJson, writeText } from "../output.js";
import { requireProperty } from "../require-property.js";

const PATHS: Record<PrivateFeed, (token: string) => string> = {
  "property-cleaning": (token) => `/cleaning/${token}.ics`,
  "owner-cleaning": (token) => `/cleaning/${token}.ics`,
  "owner-calendar": (token) => `/ical/owner/${token}.ics`,
};

type FeedOptions = { rotate?: true; revoke?: true; baseUrl?: string; json?: true; db?: string };

/** Adds `cleaning ID` to the `property` group. */
export function addPropertyCleaningCommand(property: Command, context: CliContext): void {
  withFeedOptions(property.command("cleaning"))
    .description("Print the property's cleaning link (.ics): one event per turnover, no guest data, for the people who clean")
    .argument("<id>", "property id (see: calsync property list)")
    .action(async (id: string, options: FeedOptions) => {
      refuseBoth(options);
      const store = await context.store(options.db);
      const found = await requireProperty(store, id);
      await answer(context, options, "property-cleaning", found.id, { propertyId: found.id });
    });
}

/** Adds `cleaning` and `calendar` to the `owner` group. */
export function addOwnerFeedCommands(owner: Command, context: CliContext): void {
  const specs = [
    ["cleaning", "owner-cleaning", "Print the owner's cleaning link (.ics) for all of their properties: one event per turnover, no guest data"],
    ["calendar", "owner-calendar", "Print the owner's own calendar link (.ics): every stay with its channel, summary and note (personal data: keep it private)"],
  ] as const;
  for (const [name, feed, description] of specs) {
    withFeedOptions(owner.command(name))
      .description(description)
      .addOption(ownerOption())
      .action(async (options: FeedOptions & { owner?: string }) => {
        refuseBoth(options);
        const store = await context.store(options.db);
        const found = await context.owner(store, options.owner);
        await answer(context, options, feed, found.id, { ownerId: found.id });
      });
  }
}

function withFeedOptions(command: Command) {
  return command
    .option("--rotate", "issue a new link: the old one stops working (404)")
    .option("--revoke", "switch the link off: it answers 404 until you ask for a new one")
    .option("--base-url <url>", "public address of your calsync server (default: $CALSYNC_BASE_URL, else http://localhost:8787)")
    .addOption(jsonOption())
    .addOption(dbOption());
}

function refuseBoth(options: FeedOptions): void {
  if (options.rotate && options.revoke) throw new UsageError("--rotate and --revoke cannot be used together");
}

async function answer(context: CliContext, options: FeedOptions, feed: PrivateFeed, id: string, key: Record<string, string>): Promise<void> {
  const envBase = context.io.env.CALSYNC_BASE_URL?.trim() || undefined;
  const source = options.baseUrl !== undefined ? "--base-url" : "CALSYNC_BASE_URL";
  const { DEFAULT_BASE_URL } = await import("../../sdk/options.js");
  const base = feedBaseUrl(options.baseUrl ?? envBase ?? DEFAULT_BASE_URL, source);
  const store = await context.store(options.db);
  const action = options.revoke ? "revoke" : options.rotate ? "rotate" : "make";
  const token = await store.feedSecret(feed, id, action);
  if (options.revoke) {
    if (options.json) return writeJson(context, { ...key, url: null });
    context.logger.success("Link switched off: it now answers 404. Run the command again without --revoke for a new one.");
    return;
  }
  if (token === null) throw new CliFailure("no such property or owner", 1);
  const url = `${base}${PATHS[feed](token)}`;
  if (options.json) return writeJson(context, { ...key, url });
  writeText(context, url);
  if (options.rotate) context.logger.warn("New link: the old one now answers 404.");
}
