// What `calsync demo` tells a newcomer, step by step, on stdout. The tables are the ones
// `calsync sync` and `calsync reservations` print, so what they learn here is what they will see.
import type { ReservationRow } from "../../store/types.js";
import type { SyncResponse } from "../../types.js";
import type { CliContext } from "../context.js";
import { formatSyncReport, plural, stdoutPaint, writeText } from "../output.js";
import { formatTable, type Paint } from "../table.js";
import type { DemoObserver } from "./run-demo.js";
import { CHANGING_FEED, DEMO_CALENDARS } from "./scenario.js";

/** A `DemoObserver` that explains each step to people on the context's stdout. */
export function createNarrator(context: CliContext): DemoObserver {
  const paint = stdoutPaint(context);
  const say = (text: string) => writeText(context, text);
  const heading = (n: number, text: string) => say(`\n${paint("bold", `${n}. ${text}`)}`);
  let serverUrl = "";

  return {
    ready({ dbPath, feedsUrl, serverUrl: url, scenario }) {
      serverUrl = url;
      say(paint("bold", "calsync demo: a real sync, end to end, on this machine only (loopback, nothing leaves it)"));
      heading(1, "Set-up");
      const width = Math.max(...DEMO_CALENDARS.map((c) => c.source.length));
      const calendars = DEMO_CALENDARS.map(
        (c, i) => `${i === 0 ? "   calendars   " : "               "}${c.source.padEnd(width)}  ${c.plays}`,
      );
      say(
        [
          `   database    ${dbPath} (temporary)`,
          `   owner       ${scenario.owner.name}`,
          `   property    ${scenario.property.name}`,
          ...calendars,
          `               (sample feeds from the package's demo/feeds/, served on ${feedsUrl})`,
          `   API token   ${scenario.tokenPrefix}… (the whole token is shown once, by \`calsync token create\`)`,
          `   server      ${url} (what \`calsync serve\` runs)`,
        ].join("\n"),
      );
    },

    firstSync(response) {
      heading(2, "First sync, through the SDK");
      say(
        paint("dim", `   const client = createClient({ apiKey, baseURL: "${serverUrl}" });\n`) +
          paint("dim", `   const res = await client.calendars.sync();   // HTTP ${statusOf(response)}, res.ok === ${response.ok}`),
      );
      say(`\n${formatSyncReport(response, { paint })}`);
      say(explainFailures(response, paint));
    },

    feedChanged() {
      heading(3, `${CHANGING_FEED.label}'s feed changes`);
      say(`   ${CHANGING_FEED.what}.`);
    },

    secondSync(response, reservations, before) {
      heading(4, "Second sync, the same call");
      say(`\n${formatSyncReport(response, { paint })}`);
      const changed = response.results.find((entry) => entry.source === CHANGING_FEED.source)?.result;
      if (changed) {
        say(
          `\n   ${CHANGING_FEED.source}: ${changed.reservationsCreated} created, ${changed.reservationsUpdated} updated, ` +
            `${changed.reservationsCancelled} cancelled. The feeds that did not change report 0 of each:\n` +
            "   syncing again is always safe.",
        );
      }
      heading(5, "Reservations stored now (what `calsync reservations` lists)");
      say(`\n${formatReservations(reservations, before, paint)}`);
    },
  };
}

/** The closing lines: what was cleaned up and what to run next. */
export function formatOutro(options: { seconds: number; keptDir?: string }): string {
  const cleanup = options.keptDir
    ? `Servers stopped; the database was kept in ${options.keptDir}\n` +
      `(look at it with: calsync reservations --db ${options.keptDir}/calsync.db)`
    : "Servers stopped; temporary database deleted.";
  return (
    `\nDone in ${options.seconds.toFixed(1)} s. ${cleanup}\n\n` +
    "Next, with your own calendars:\n" +
    '  calsync owner add "Your Name"\n' +
    '  calsync property add "Your Property"\n' +
    "  calsync calendar test --url https://…/calendar.ics\n" +
    "  calsync calendar add --property ID --url https://…/calendar.ics\n" +
    "  calsync sync --local\n"
  );
}

// The SDK hides the status (it resolves for both); the body says which one it was.
function statusOf(response: SyncResponse): number {
  return response.ok ? 200 : 207;
}

function explainFailures(response: SyncResponse, paint: Paint): string {
  if (response.ok) return "   Every calendar synchronised: HTTP 200.";
  const failed = response.results.filter((entry) => !entry.ok);
  const reasons = failed.map(
    (entry) => `     ${entry.source}: ${paint("red", entry.result.error?.code ?? "failed")}, ${entry.result.error?.message ?? ""}`,
  );
  const good = response.syncedCalendars - response.failed;
  return [
    "",
    `   Why 207? ${plural(failed.length, "calendar", "calendars")} of ${response.syncedCalendars} failed:`,
    ...reasons,
    "   A failed calendar writes nothing (its counts are 0, what it stored before stays as it was),",
    `   and it does not hold the others back: the ${plural(good, "good calendar was", "good calendars were")} stored.`,
    "   The SDK resolves a 207 (res.ok is false) instead of throwing, so an app reads res.results;",
    "   `calsync sync` exits with 3.",
  ].join("\n");
}

/** Reservations with a CHANGE column saying what the second sync did to each. */
function formatReservations(rows: ReservationRow[], before: ReservationRow[], paint: Paint): string {
  const earlier = new Map(before.map((row) => [row.id, row]));
  const change = (row: ReservationRow): string => {
    const old = earlier.get(row.id);
    if (!old || (old.status === "cancelled" && row.status === "active")) return paint("green", "new");
    if (old.status === "active" && row.status === "cancelled") return paint("red", "cancelled");
    if (old.start !== row.start || old.end !== row.end) return paint("yellow", `moved (was ${old.start} – ${old.end})`);
    return "";
  };
  const table = rows.map((row) => [
    row.source,
    row.kind,
    row.status === "active" ? row.status : paint("dim", row.status),
    row.start,
    row.end,
    row.summary,
    change(row),
  ]);
  const headers = ["SOURCE", "KIND", "STATUS", "START", "END", "SUMMARY", "CHANGE"];
  return formatTable(headers.map((header) => ({ header })), table, paint);
}
