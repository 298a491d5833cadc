// `calsync owner add|list`: the people whose properties and calendars are synced.
import { Command } from "@commander-js/extra-typings";
import type { Owner } from "../../store/types.js";
import { CliFailure, UsageError, type CliContext } from "../context.js";
import { dbOption, jsonOption } from "../options.js";
import { stdoutPaint, writeJson, writeText } from "../output.js";
import { formatTable, formatTime } from "../table.js";

/** The JSON shape of an owner (CONTRACT §6). */
export function ownerJson(owner: Owner) {
  return { id: owner.id, name: owner.name };
}

/** Builds the `owner` command group. */
export function ownerCommand(context: CliContext) {
  const owner = new Command("owner").description("Add and list owners (each has its own properties and API tokens)");

  owner
    .command("add")
    .description("Add an owner")
    .argument("<name>", "name of the owner, e.g. \"Ann Smith\"")
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (rawName, options) => {
      const name = rawName.trim();
      if (!name) throw new UsageError("the owner's name is empty");
      const store = await context.store(options.db);
      const same = (await store.listOwners()).find((o) => o.name === name);
      // Owners are chosen by name too (--owner NAME), so two of one name would be ambiguous.
      if (same) throw new CliFailure(`an owner named "${name}" already exists (${same.id})`, 1);
      const created = await store.createOwner(name);
      if (options.json) writeJson(context, ownerJson(created));
      else writeText(context, `Added owner ${created.id} "${created.name}".`);
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
      const rows = owners.map((o) => [o.id, o.name, formatTime(o.createdAt)]);
      const paint = stdoutPaint(context);
      writeText(context, formatTable([{ header: "ID" }, { header: "NAME" }, { header: "CREATED" }], rows, paint));
    });

  return owner;
}
