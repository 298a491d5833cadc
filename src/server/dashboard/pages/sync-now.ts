// Sync now: the owner's sync through the same single-flight runner as the API (a sync already
// running for the owner is joined, not doubled), answered with the API's per-calendar results.
import type { H3 } from "h3";
import type { SyncResponse, SyncResultEntry } from "../../../types.js";
import { ownerAction, type DashboardContext, type Visit } from "../context.js";
import { longDay, plural } from "../format.js";
import { html, url, type SafeHtml } from "../html.js";
import { htmlResponse, safeLocalPath } from "../http.js";
import { csrfField, layout } from "../layout.js";

/** The Sync now button; `back` is the page to return to from the results. */
export function syncNowForm(visit: Visit, back: string): SafeHtml {
  return html`<form method="post" action="/sync" class="sync-form" data-busy="Syncing…">
    ${csrfField(visit.csrf)}<input type="hidden" name="back" value="${back}">
    <button type="submit" class="button primary">Sync now</button>
  </form>`;
}

/** Adds POST /sync. */
export function registerSyncNow(app: H3, ctx: DashboardContext): void {
  // The results are shown as the answer to the POST rather than after a redirect: they are the report
  // of this one run, and the sync history keeps no double bookings to show them again from.
  app.post(
    "/sync",
    ownerAction(ctx, async (_event, visit, form) => {
      const response = await ctx.runner.run(visit.owner.id, "dashboard");
      const back = safeLocalPath(form.get("back") ?? "/properties");
      return htmlResponse(200, layout({ title: "Sync results", body: resultsView(response, back), visit }));
    }),
  );
}

function resultsView(response: SyncResponse, back: string): SafeHtml {
  const ok = response.syncedCalendars - response.failed;
  const verdict = response.ok
    ? html`<p class="verdict ok"><strong>All ${plural(response.syncedCalendars, "calendar", "calendars")} synced.</strong> The API answers 200 OK.</p>`
    : html`<p class="verdict failed"><strong>${response.failed} of ${plural(response.syncedCalendars, "calendar", "calendars")} failed</strong>, ${ok} ok. The API answers 207 Multi-Status with the same details.</p>`;
  const rows = response.results.map(resultRow);
  return html`<div class="page-head"><div><h1>Sync results</h1>
  <p class="muted">${plural(response.propertiesChecked, "property", "properties")} checked in ${response.durationMs} ms</p></div>
  <a class="button" href="$${url(back)}">Back</a></div>
${verdict}
${response.results.length === 0 ? html`<p class="card empty">No calendars to sync yet: add one to a property.</p>` : html`<div class="table-wrap card flush" tabindex="0" role="region" aria-label="Sync results, scrolls sideways on a narrow screen"><table class="data results">
  <thead><tr><th>Property</th><th>Channel</th><th>Status</th><th class="num">Found</th><th class="num">Created</th><th class="num">Updated</th><th class="num">Cancelled</th><th>Error</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`}
${conflictsView(response)}`;
}

function resultRow(entry: SyncResultEntry): SafeHtml {
  const { result } = entry;
  // A failed calendar reports 0 everywhere; a dash says "not known" rather than "the feed was empty".
  const count = (n: number) => (entry.ok ? String(n) : "–");
  const error = result.error
    ? html`<code>${result.error.code}</code>${result.error.httpStatus ? html` <span class="muted">(HTTP ${result.error.httpStatus})</span>` : html``}<div class="error-text">${result.error.message}</div>`
    : html``;
  return html`<tr class="${entry.ok ? "" : "row-failed"}">
  <td><a href="$${url(`/properties/${entry.propertyId}`)}">${entry.propertyName}</a></td>
  <td><span class="chip source-${entry.source}">${entry.source}</span></td>
  <td>${entry.ok ? html`<span class="pill ok">ok</span>` : html`<span class="pill failed">failed</span>`}</td>
  <td class="num">${count(result.reservationsFound)}</td><td class="num">${count(result.reservationsCreated)}</td>
  <td class="num">${count(result.reservationsUpdated)}</td><td class="num">${count(result.reservationsCancelled)}</td>
  <td>${error}</td>
</tr>`;
}

function conflictsView(response: SyncResponse): SafeHtml {
  const conflicts = response.conflicts ?? [];
  if (conflicts.length === 0) return html``;
  const items = conflicts.map(
    (c) => html`<li><strong>${c.propertyName}</strong>: ${longDay(c.from)} → ${longDay(c.to)} — ${c.reservations.map((r) => html`<span class="chip source-${r.source}">${r.source}</span> ${r.summary} `)}</li>`,
  );
  return html`<section class="card warning-card"><h2>⚠ ${plural(conflicts.length, "double booking", "double bookings")}</h2>
  <p class="muted">The same nights are sold on more than one channel.</p><ul>${items}</ul></section>`;
}
