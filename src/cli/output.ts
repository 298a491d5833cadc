// What commands print: JSON for scripts, tables and one-line summaries for people. Data goes to stdout only.
import type { SyncResponse, SyncResultEntry } from "../types.js";
import { EXIT, type CliContext } from "./context.js";
import { formatTable, painterFor, type Paint } from "./table.js";
import { forTerminal, jsonText } from "./terminal-text.js";

/** Prints one JSON document to stdout (DEL and C1 characters escaped as well, so a terminal obeys none). */
export function writeJson(context: CliContext, value: unknown): void {
  context.io.stdout.write(`${jsonText(JSON.stringify(value, null, 2))}\n`);
}

/** Prints text for people to stdout, ending it with a newline; control characters from feeds and apps are replaced. */
export function writeText(context: CliContext, text: string): void {
  context.io.stdout.write(forTerminal(text.endsWith("\n") ? text : `${text}\n`));
}

/** The colour function for stdout of this run. */
export function stdoutPaint(context: CliContext): Paint {
  return painterFor(context.io.stdout, context.io.env);
}

/** Prints a Sync response (unchanged as JSON, or as a table) and sets the exit code: 0 all ok, 3 some failed. */
export function printSyncResponse(
  context: CliContext,
  response: SyncResponse,
  options: { json?: boolean; dryRun?: boolean } = {},
): void {
  if (options.json) writeJson(context, response);
  else writeText(context, formatSyncReport(response, { paint: stdoutPaint(context), dryRun: options.dryRun }));
  // A double booking or an unreadable event is a warning, not a failure: the exit code stays that of the calendars.
  const unreadable = response.results.reduce((total, entry) => total + (entry.result.warnings?.length ?? 0), 0);
  if (unreadable > 0) {
    const where = options.json ? "see warnings in the JSON" : "see above";
    context.logger.warn(`${plural(unreadable, "event", "events")} with unreadable dates left as stored (${where})`);
  }
  const conflicts = response.conflicts?.length ?? 0;
  if (conflicts > 0) {
    const where = options.json ? "see conflicts in the JSON, or: calsync conflicts" : "see above, or: calsync conflicts";
    context.logger.warn(`${plural(conflicts, "double booking", "double bookings")}: the same nights are sold on more than one calendar (${where})`);
  }
  context.exitCode = response.ok ? EXIT.ok : EXIT.partial;
}

/** A Sync response as people read it: one row per calendar, double bookings, then a summary line. */
export function formatSyncReport(response: SyncResponse, options: { paint: Paint; dryRun?: boolean }): string {
  const { paint } = options;
  if (response.results.length === 0) {
    return (
      `No calendars to sync (${plural(response.propertiesChecked, "property", "properties")} checked).\n` +
      "Add one with: calsync calendar add --property ID --url URL\n"
    );
  }
  const columns = [
    { header: "PROPERTY" },
    { header: "SOURCE" },
    { header: "STATUS" },
    ...["FOUND", "CREATED", "UPDATED", "CANCELLED"].map((header) => ({ header, align: "right" as const })),
    { header: "ERROR" },
  ];
  const table = formatTable(columns, response.results.map((entry) => resultRow(entry, paint)), paint);
  const dryRun = options.dryRun ? ` — ${paint("yellow", "dry run, nothing was written")}` : "";
  const notes = `${formatWarnings(response, paint)}${formatConflicts(response, paint, options.dryRun)}`;
  return `${table}${notes}\n${summaryLine(response, paint)}${dryRun}\n`;
}

function resultRow(entry: SyncResultEntry, paint: Paint): string[] {
  const { result } = entry;
  // A failed calendar reports 0 everywhere; a dash says "not known" rather than "the feed was empty".
  const count = (n: number) => (entry.ok ? String(n) : "-");
  const error = result.error ? paint("red", `${result.error.code}: ${result.error.message}`) : "";
  return [
    entry.propertyName,
    entry.source,
    entry.ok ? paint("green", "ok") : paint("red", "failed"),
    count(result.reservationsFound),
    count(result.reservationsCreated),
    count(result.reservationsUpdated),
    count(result.reservationsCancelled),
    error,
  ];
}

function formatWarnings(response: SyncResponse, paint: Paint): string {
  const lines = response.results.flatMap((entry) =>
    (entry.result.warnings ?? []).map((warning) => {
      const event = warning.uid ? `event ${JSON.stringify(warning.uid)}` : "an event without UID";
      return `  ${entry.propertyName} (${entry.source}): ${event}: ${warning.message}`;
    }),
  );
  if (lines.length === 0) return "";
  const title = `Unreadable events (${lines.length}): a stored reservation is kept as it was, a new one is skipped:`;
  return `\n${paint("yellow", title)}\n${lines.join("\n")}\n`;
}

function formatConflicts(response: SyncResponse, paint: Paint, dryRun = false): string {
  const conflicts = response.conflicts ?? [];
  if (conflicts.length === 0) return "";
  const lines = conflicts.map((conflict) => {
    const who = conflict.reservations.map((r) => `${r.source} "${r.summary}"`).join(", ");
    return `  ${conflict.propertyName}, ${conflict.from} → ${conflict.to}: ${who}`;
  });
  // A dry run wrote nothing, so its double bookings are those already stored.
  const title = `Double bookings (${conflicts.length}${dryRun ? ", as stored before this dry run" : ""}):`;
  return `\n${paint("yellow", title)}\n${lines.join("\n")}\n`;
}

function summaryLine(response: SyncResponse, paint: Paint): string {
  const sum = (pick: (entry: SyncResultEntry) => number) =>
    response.results.reduce((total, entry) => total + pick(entry), 0);
  const ok = response.syncedCalendars - response.failed;
  const outcome = response.failed
    ? `${ok} ok, ${paint("red", `${response.failed} failed`)}`
    : paint("green", `${ok} ok`);
  const changes =
    `${sum((e) => e.result.reservationsCreated)} created, ${sum((e) => e.result.reservationsUpdated)} updated, ` +
    `${sum((e) => e.result.reservationsCancelled)} cancelled`;
  const scope =
    `Synced ${plural(response.syncedCalendars, "calendar", "calendars")} of ` +
    plural(response.propertiesChecked, "property", "properties");
  return `${scope}: ${outcome}; ${changes} (${response.durationMs} ms)`;
}

/** `1 calendar`, `2 calendars`. */
export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
