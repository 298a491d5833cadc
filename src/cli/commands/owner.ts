// `calsync owner add|list|update|invite`: the people whose properties and calendars are synced, and
// their dashboard sign-in (email, invite link).
import { Command } from "@commander-js/extra-typings";
import type { Owner, Store } from "../../store/types.js";
import { CliFailure, UsageError, type CliContext } from "../context.js";
import { dbOption, jsonOption } from "../options.js";
import { stdoutPaint, writeJson, writeText } from "../output.js";
import { formatTable, formatTime } from "../table.js";
import { addOwnerInviteCommand } from "./owner-invite.js";
import { addOwnerFeedCommands } from "./private-feeds.js";

/** The JSON shape of an owner (CONTRACT §6); `email` is additive, present only once set, so `{id, name}` stays as it was. */
export function ownerJson(owner: Owner) {
  return { id: owner.id, name: owner.name, ...(owner.email ? { email: owner.email } : {}) };
}

/** Builds the `owner` command group. */
export function ownerCommand(context: CliContext) {
  const owner = new Command("owner").description(
    "Add, list and update owners (each has its own properties and API tokens); invite them to the dashboard",
  );

  owner
    .command("add")
    .description("Add an owner")
    .argument("<name>", "name of the owner, e.g. \"Ann Smith\"")
    .option("--email <email>", "the owner's email: their sign-in name for the dashboard")
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (rawName, options) => {
      const name = rawName.trim();
      if (!name) throw new UsageError("the owner's name is empty");
      const email = options.email === undefined ? null : await checkEmail(options.email);
      const store = await context.store(options.db);
      const same = (await store.listOwners()).find((o) => o.name === name);
      // Owners are chosen by name too (--owner NAME), so two of one name would be ambiguous.
      if (same) throw new CliFailure(`an owner named "${name}" already exists (${same.id})`, 1);
      if (email) await assertEmailFree(store, email);
      const created = await store.createOwner(name, { email });
      if (options.json) writeJson(context, ownerJson(created));
      else writeText(context, `Added owner ${created.id} "${created.name}"${email ? ` <${email}>` : ""}.`);
      if (email && !options.json) context.logger.info(`Next: calsync owner invite --owner ${created.id}`);
    });

  owner
    .command("update")
    .description("Change an owner's email (their dashboard sign-in name)")
    .argument("<id>", "owner id or name (see: calsync owner list)")
    .requiredOption("--email <email>", "the new email")
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (id, options) => {
      const email = await checkEmail(options.email);
      const store = await context.store(options.db);
      const found = await context.owner(store, id);
      if (found.email !== email) await assertEmailFree(store, email);
      await store.setOwnerEmail(found.id, email);
      const updated = { ...found, email };
      if (options.json) return writeJson(context, ownerJson(updated));
      writeText(context, `Owner ${updated.id} "${updated.name}" now signs in as ${email}.`);
    });

  owner
    .command("list")
    .description("List owners")
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (options) => {
      const owners = await (await context.store(options.db)).listOwners();
      if (options.json) return writeJson(context, owners.map(ownerJson));
      if (owners.length === 0) return context.logger.info("No owners yet. Add one with: calsync owner add NAME");
      const rows = owners.map((o) => [o.id, o.name, o.email ?? "", formatTime(o.createdAt)]);
      const paint = stdoutPaint(context);
      const columns = [{ header: "ID" }, { header: "NAME" }, { header: "EMAIL" }, { header: "CREATED" }];
      writeText(context, formatTable(columns, rows, paint));
    });

  addOwnerInviteCommand(owner, context);
  addOwnerFeedCommands(owner, context);
  return owner;
}

// The account rules load with the commands that take an email, so `owner list` does without them.
async function checkEmail(raw: string): Promise<string> {
  const { isPlausibleEmail, normalizeEmail } = await import("../../server/accounts.js");
  const email = normalizeEmail(raw);
  if (!isPlausibleEmail(email)) {
    throw new UsageError(`--email must be one address such as ann@example.com, without a name or <> (got ${JSON.stringify(raw)})`);
  }
  return email;
}

// Emails are sign-in names: one account each.
async function assertEmailFree(store: Store, email: string): Promise<void> {
  const holder = await store.findOwnerByEmail(email);
  if (holder) throw new CliFailure(`${email} is already the email of owner ${holder.id} "${holder.name}"`, 1);
}
