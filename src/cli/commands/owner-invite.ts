// `calsync owner invite`: a one-time link where an owner chooses a dashboard password (CONTRACT §9).
import type { Command } from "@commander-js/extra-typings";
import { CliFailure, type CliContext } from "../context.js";
import { dbOption, jsonOption, ownerOption } from "../options.js";
import { writeJson, writeText } from "../output.js";
import { formatTime } from "../table.js";
import { feedBaseUrl } from "../base-url.js";

/** Adds `invite` to the `owner` command group. */
export function addOwnerInviteCommand(owner: Command<any, any, any>, context: CliContext): void {
  owner
    .command("invite")
    .description("Print a one-time dashboard link (valid 72 h) where the owner chooses a password")
    .addOption(ownerOption())
    .option("--base-url <url>", "public address of your calsync server (default: $CALSYNC_BASE_URL, else http://localhost:8787)")
    .option("--no-email", "do not email the link (by default it is also mailed to the owner by calsync serve --smtp-url)")
    .addOption(jsonOption())
    .addOption(dbOption())
    .addHelpText(
      "after",
      "\nThe owner needs an email first (owner add NAME --email E, or owner update ID --email E): it is their sign-in name.\n" +
        "A new link also works as a password reset; using any link retires the owner's other open links.\n" +
        "The link is also mailed to the owner's email by the calsync serve that runs with --smtp-url (unless --no-email).\n" +
        'With --json: {"ownerId", "url", "expiresAt"}.\n' +
        "Example:\n  calsync owner invite --owner own_… --base-url https://cal.example.com",
    )
    .action(async (options: { owner?: string; baseUrl?: string; email: boolean; json?: true; db?: string }) => {
      // Loaded here, not with `owner`: every other owner command does without them.
      const [{ issueInvite }, { DEFAULT_BASE_URL }] = await Promise.all([import("../../server/accounts.js"), import("../../sdk/options.js")]);
      const envBase = context.io.env.CALSYNC_BASE_URL?.trim() || undefined;
      const source = options.baseUrl !== undefined ? "--base-url" : "CALSYNC_BASE_URL";
      const base = feedBaseUrl(options.baseUrl ?? envBase ?? DEFAULT_BASE_URL, source);
      const store = await context.store(options.db);
      const found = await context.owner(store, options.owner);
      if (!found.email) {
        throw new CliFailure(
          `owner ${found.id} "${found.name}" has no email to sign in with: calsync owner update ${found.id} --email E`,
          1,
        );
      }
      const invite = await issueInvite(store, found.id, base, new Date(), { email: options.email });
      if (options.json) return writeJson(context, invite);
      // Only the link on stdout, so `LINK=$(calsync owner invite)` works; the note goes to stderr.
      writeText(context, invite.url);
      context.logger.info(
        `One-time link for ${found.name} <${found.email}>, valid until ${formatTime(invite.expiresAt)}: they choose a password there.`,
      );
      if (options.email) context.logger.info(`Also mailed to ${found.email} by calsync serve, when it runs with --smtp-url.`);
    });
}
