// `calsync property add|update|list|remove|feed`: the rentals whose calendars are synced, their time zone, and
// their outbound feed URL.
import { Command, Option } from "@commander-js/extra-typings";
import { feedBaseUrl } from "../base-url.js";
import { propertyNameProblem } from "../../store/property-name.js";
import type { Property, PropertyChanges } from "../../store/types.js";
import { readPropertyChanges } from "../../resources/property-settings.js";
import { CliFailure, UsageError, type CliContext } from "../context.js";
import { dbOption, jsonOption, ownerOption } from "../options.js";
import { plural, stdoutPaint, writeJson, writeText } from "../output.js";
import { requireProperty } from "../require-property.js";
import { formatTable } from "../table.js";
import { timeZoneOption } from "../time-zone-option.js";
import { addPropertyCleaningCommand } from "./private-feeds.js";

/** The JSON shape of a property (CONTRACT §6, §8: `timeZone` null when unset). */
export function propertyJson(property: Property) {
  return {
    id: property.id,
    ownerId: property.ownerId,
    name: property.name,
    timeZone: property.timeZone,
    checkInTime: property.checkInTime,
    checkOutTime: property.checkOutTime,
    bufferNights: property.bufferNights,
    cleanerEmails: property.cleanerEmails,
  };
}

/** Builds the `property` command group. */
export function propertyCommand(context: CliContext) {
  const property = new Command("property").description(
    "Add, update, list and remove properties (rentals) and their time zone; print their feed URL",
  );

  property
    .command("add")
    .description("Add a property")
    .argument("<name>", "name of the property, e.g. \"Sea View Loft\"")
    .addOption(ownerOption())
    .addOption(timeZoneOption())
    .addOption(jsonOption())
    .addOption(dbOption())
    .addHelpText("after", ZONE_HELP)
    .action(async (rawName, options) => {
      const name = rawName.trim();
      const problem = propertyNameProblem(name);
      if (problem) throw new UsageError(problem);
      const store = await context.store(options.db);
      const owner = await context.owner(store, options.owner);
      const created = await store.createProperty(owner.id, name, options.timezone ?? null);
      if (options.json) return writeJson(context, propertyJson(created));
      writeText(context, `Added property ${created.id} "${created.name}" for ${owner.name}${zoneNote(created)}.`);
      if (!created.timeZone) {
        context.logger.info(`Timed stays count in their feed's zone until you set the property's: calsync property update ${created.id} --timezone ZONE`);
      }
      context.logger.info(`Next: calsync calendar add --property ${created.id} --url URL`);
    });

  property
    .command("update")
    .description("Rename a property, set its time zone (its reservations' nights are recomputed), check-in and check-out times, buffer nights and cleaners")
    .argument("<id>", "property id (see: calsync property list)")
    .option("--name <name>", "new name")
    .addOption(timeZoneOption("new IANA time zone, e.g. Europe/Lisbon"))
    .addOption(new Option("--no-timezone", "remove the time zone: timed stays count in their feed's zone again"))
    .option("--check-in <HH:MM>", "check-in time in the property's zone, 24 h (default 15:00)")
    .option("--check-out <HH:MM>", "check-out time in the property's zone, 24 h (default 11:00)")
    .option("--buffer-nights <n>", "nights kept free before every booking's arrival and after its departure, 0-7 (default 0)")
    .option("--cleaner-email <address...>", "the cleaners' addresses (at most 5; replaces the list), mailed about turnovers")
    .option("--no-cleaner-email", "remove every cleaner address")
    .addOption(jsonOption())
    .addOption(dbOption())
    .addHelpText("after", ZONE_HELP)
    .action(async (id, options) => {
      const name = options.name?.trim();
      if (name === "") throw new UsageError("--name is empty");
      const problem = name === undefined ? undefined : propertyNameProblem(name);
      if (problem) throw new UsageError(`--name: ${problem}`);
      const settings = readSettingsOptions(options);
      if (name === undefined && options.timezone === undefined && Object.keys(settings).length === 0) {
        throw new UsageError("nothing to change: give --name, --timezone ZONE, --no-timezone, --check-in, --check-out, --buffer-nights or --cleaner-email");
      }
      const store = await context.store(options.db);
      await requireProperty(store, id);
      const timeZone = options.timezone === undefined ? undefined : options.timezone || null;
      const updated = await store.updateProperty(id, { name, timeZone, ...settings });
      if (!updated) throw new CliFailure(`no property "${id}" (see: calsync property list)`, 1);
      if (options.json) return writeJson(context, propertyJson(updated.property));
      writeText(context, `Updated property ${updated.property.id} "${updated.property.name}"${zoneNote(updated.property)}.`);
      if (timeZone !== undefined) {
        context.logger.info(`${plural(updated.nightsChanged, "reservation's", "reservations'")} nights moved; the outbound feed shows them at once.`);
      }
    });

  property
    .command("list")
    .description("List properties")
    .addOption(ownerOption("only this owner's properties (id or name; default: every owner)"))
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (options) => {
      const store = await context.store(options.db);
      const ownerId = options.owner === undefined ? undefined : (await context.owner(store, options.owner)).id;
      const properties = await store.listProperties(ownerId);
      if (options.json) return writeJson(context, properties.map(propertyJson));
      if (properties.length === 0) return context.logger.info("No properties yet. Add one with: calsync property add NAME");
      const owners = new Map((await store.listOwners()).map((o) => [o.id, o.name]));
      const calendars = await store.listCalendars({ ownerId });
      const paint = stdoutPaint(context);
      const rows = properties.map((p) => [
        p.id,
        p.name,
        p.timeZone ?? paint("dim", "not set"),
        owners.get(p.ownerId) ?? p.ownerId,
        String(calendars.filter((c) => c.propertyId === p.id).length),
      ]);
      const columns = [
        { header: "ID" },
        { header: "NAME" },
        { header: "TIME ZONE" },
        { header: "OWNER" },
        { header: "CALENDARS", align: "right" as const },
      ];
      writeText(context, formatTable(columns, rows, paint));
    });

  property
    .command("remove")
    .description("Remove a property with its calendars and their reservations")
    .argument("<id>", "property id (see: calsync property list)")
    .addOption(jsonOption())
    .addOption(dbOption())
    .action(async (id, options) => {
      const store = await context.store(options.db);
      const removed = await requireProperty(store, id);
      const calendars = (await store.listCalendars({ propertyId: id })).length;
      await store.removeProperty(id);
      if (options.json) return writeJson(context, propertyJson(removed));
      writeText(context, `Removed property ${removed.id} "${removed.name}" and its ${plural(calendars, "calendar", "calendars")}.`);
    });

  property
    .command("feed")
    .description("Print the property's outbound feed URL, to paste into each channel's \"import calendar\" box")
    .argument("<id>", "property id (see: calsync property list)")
    .option("--rotate", "issue a new feed token: the old URL stops working (404)")
    .option("--revoke", "switch the feed off: its URL answers 404 until you ask for a new one")
    .option("--base-url <url>", "public address of your calsync server (default: $CALSYNC_BASE_URL, else http://localhost:8787)")
    .addOption(jsonOption())
    .addOption(dbOption())
    .addHelpText("after", "\nSee docs/two-way-sync.md. Example:\n  calsync property feed prp_… --base-url https://cal.example.com")
    .action(async (id, options) => {
      const envBase = context.io.env.CALSYNC_BASE_URL?.trim() || undefined;
      const source = options.baseUrl !== undefined ? "--base-url" : "CALSYNC_BASE_URL";
      const { DEFAULT_BASE_URL } = await import("../../sdk/options.js");
      const base = feedBaseUrl(options.baseUrl ?? envBase ?? DEFAULT_BASE_URL, source);
      if (options.rotate && options.revoke) throw new UsageError("--rotate and --revoke cannot be used together");
      const store = await context.store(options.db);
      const found = await requireProperty(store, id);
      if (options.revoke) {
        await store.setPropertyFeedToken(found.id, null);
        if (options.json) return writeJson(context, { propertyId: found.id, url: null });
        context.logger.success(`Feed of ${JSON.stringify(found.name)} (${found.id}) switched off: its URL now answers 404. \`calsync property feed ${found.id}\` issues a new one.`);
        return;
      }
      const token = await store.propertyFeedToken(found.id, { rotate: options.rotate ?? false });
      if (token === undefined) throw new CliFailure(`no property "${id}" (see: calsync property list)`, 1);
      const url = `${base}/ical/${token}.ics`;
      if (options.json) return writeJson(context, { propertyId: found.id, url });
      writeText(context, url);
      if (options.rotate) context.logger.warn("New feed URL: the old one now answers 404. Paste this one into every channel.");
      context.logger.info("Give each channel this URL with its own name excluded, e.g. …?exclude=airbnb for Airbnb.");
      if (options.baseUrl === undefined && envBase === undefined) {
        context.logger.info("Channels need an address they can reach: pass --base-url https://… (or set CALSYNC_BASE_URL).");
      }
    });

  addPropertyCleaningCommand(property, context);
  return property;
}

const SETTING_FLAGS: Record<string, string> = {
  checkInTime: "--check-in",
  checkOutTime: "--check-out",
  bufferNights: "--buffer-nights",
  cleanerEmails: "--cleaner-email",
};

// The turnover flags read by the same check as the API's PATCH body, so both refuse the same input;
// a refusal names the flag and exits 2 before anything is stored.
function readSettingsOptions(options: { checkIn?: string; checkOut?: string; bufferNights?: string; cleanerEmail?: string[] | boolean }): PropertyChanges {
  const body: Record<string, unknown> = {};
  if (options.checkIn !== undefined) body.checkInTime = options.checkIn;
  if (options.checkOut !== undefined) body.checkOutTime = options.checkOut;
  if (options.bufferNights !== undefined) {
    body.bufferNights = /^\d{1,2}$/.test(options.bufferNights) ? Number(options.bufferNights) : options.bufferNights;
  }
  if (options.cleanerEmail !== undefined && options.cleanerEmail !== true) body.cleanerEmails = options.cleanerEmail || [];
  if (Object.keys(body).length === 0) return {};
  const read = readPropertyChanges(body);
  if (!read.ok) {
    const flag = SETTING_FLAGS[read.problem.name] ?? read.problem.name;
    throw new UsageError(`${flag}: ${read.problem.message}`);
  }
  return read.value;
}

const ZONE_HELP =
  "\nA night belongs to a place: a timed stay (16:00 on 10 Dec → 10:00 on 13 Dec) takes the nights of its\n" +
  "local dates in the property's zone (10, 11, 12 Dec), whatever this machine's zone. Without a zone, the\n" +
  "event's own TZID, else the feed's X-WR-TIMEZONE, else UTC. Example:\n" +
  "  calsync property update prp_… --timezone America/Los_Angeles";

// " (America/Los_Angeles)" after a property's name, or nothing when it has no zone.
function zoneNote(property: Property): string {
  return property.timeZone ? ` (${property.timeZone})` : "";
}
