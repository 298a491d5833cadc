// `calsync property add|list|remove`: the rentals whose calendars are synced.
import { Command } from "@commander-js/extra-typings";
import type { Property, Store } from "../../store/types.js";
import { CliFailure, UsageError, type CliContext } from "../context.js";
import { dbOption, jsonOption, ownerOption } from "../options.js";
import { plural, stdoutPaint, writeJson, writeText } from "../output.js";
import { formatTable } from "../table.js";

/** The JSON shape of a property (CONTRACT §6). */
export function propertyJson(property: Property) {
  return { id: property.id, ownerId: property.ownerId, name: property.name };
}

/** The property with this id, or a failure that tells where to find ids. */
export function requireProperty(store: Store, id: string): Property {
  const property = store.getProperty(id);
  if (!property) throw new CliFailure(`no property "${id}" (see: calsync property list)`, 1);
  return property;
}

/** Builds the `property` command group. */
export function propertyCommand(context: CliContext) {
  const property = new Command("property").description("Add, list and remove properties (rentals)");

  property
    .command("add")
    .description("Add a property")
    .argument("<name>", "name of the property, e.g. \"Sea View Loft\"")
    .addOption(ownerOption())
    .addOption(jsonOption())
    .addOption(dbOption())
    .action((rawName, options) => {
      const name = rawName.trim();
      if (!name) throw new UsageError("the property's name is empty");
      const store = context.store(options.db);
      const owner = context.owner(store, options.owner);
      const created = store.createProperty(owner.id, name);
      if (options.json) return writeJson(context, propertyJson(created));
      writeText(context, `Added property ${created.id} "${created.name}" for ${owner.name}.`);
      context.logger.info(`Next: calsync calendar add --property ${created.id} --url URL`);
    });

  property
    .command("list")
    .description("List properties")
    .addOption(ownerOption("only this owner's properties (id or name; default: every owner)"))
    .addOption(jsonOption())
    .addOption(dbOption())
    .action((options) => {
      const store = context.store(options.db);
      const ownerId = options.owner === undefined ? undefined : context.owner(store, options.owner).id;
      const properties = store.listProperties(ownerId);
      if (options.json) return writeJson(context, properties.map(propertyJson));
      if (properties.length === 0) return context.logger.info("No properties yet. Add one with: calsync property add NAME");
      const owners = new Map(store.listOwners().map((o) => [o.id, o.name]));
      const calendars = store.listCalendars({ ownerId });
      const rows = properties.map((p) => [
        p.id,
        p.name,
        owners.get(p.ownerId) ?? p.ownerId,
        String(calendars.filter((c) => c.propertyId === p.id).length),
      ]);
      const columns = [{ header: "ID" }, { header: "NAME" }, { header: "OWNER" }, { header: "CALENDARS", align: "right" as const }];
      writeText(context, formatTable(columns, rows, stdoutPaint(context)));
    });

  property
    .command("remove")
    .description("Remove a property with its calendars and their reservations")
    .argument("<id>", "property id (see: calsync property list)")
    .addOption(jsonOption())
    .addOption(dbOption())
    .action((id, options) => {
      const store = context.store(options.db);
      const removed = requireProperty(store, id);
      const calendars = store.listCalendars({ propertyId: id }).length;
      store.removeProperty(id);
      if (options.json) return writeJson(context, propertyJson(removed));
      writeText(context, `Removed property ${removed.id} "${removed.name}" and its ${plural(calendars, "calendar", "calendars")}.`);
    });

  return property;
}
