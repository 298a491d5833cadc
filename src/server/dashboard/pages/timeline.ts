// /properties/<id>/timeline: the next 90 nights at a glance, one row per calendar, each stay a bar,
// double bookings in red with a ⚠ and the words "Double booking" (never colour alone).
import { getRouterParam, type H3 } from "h3";
import { todayAt } from "../../../engine/nights.js";
import { ownerPage, type DashboardContext, type Visit } from "../context.js";
import { longDay, monthLabel, plural, shortDay, weekday } from "../format.js";
import { html, url, type SafeHtml } from "../html.js";
import { htmlResponse } from "../http.js";
import { layout } from "../layout.js";
import { ownedProperty } from "../owned.js";
import { buildTimeline, type Timeline, type TimelineBar, type TimelineConflict, type TimelineRow } from "../timeline-model.js";
import { notFoundPage } from "./errors.js";
import { exposedRows, type ExposedRow } from "./timeline-exposed.js";

/** Nights the timeline shows, from today. */
export const TIMELINE_DAYS = 90;

/** Adds GET /properties/<id>/timeline. */
export function registerTimeline(app: H3, ctx: DashboardContext): void {
  app.get(
    "/properties/:id/timeline",
    ownerPage(ctx, async (event, visit) => {
      const property = await ownedProperty(ctx.store, visit.owner.id, getRouterParam(event, "id"));
      if (!property) return notFoundPage(visit);
      const [calendars, reservations] = await Promise.all([
        // Direct stays (CONTRACT §14) get a row of their own, like a channel's.
        ctx.store.listCalendars({ propertyId: property.id, includeDirect: true }),
        ctx.store.listReservations({ propertyId: property.id, status: "active" }),
      ]);
      const timeline = buildTimeline({ calendars, reservations, today: todayAt(ctx.now(), property.timeZone), days: TIMELINE_DAYS, bufferNights: property.bufferNights });
      const exposed = await exposedRows(ctx, property, timeline.days);
      const body = html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/properties">Overview</a> <span aria-hidden="true">/</span>
  <a href="$${url(`/properties/${property.id}`)}">${property.name}</a> <span aria-hidden="true">/</span> Timeline</nav>
<div class="page-head"><div><h1>${property.name}</h1>
  <p class="muted">Next ${TIMELINE_DAYS} nights from ${longDay(timeline.days[0]!)} · ${timeline.occupiedNights} of ${TIMELINE_DAYS} nights taken</p></div>
  <div class="actions"><a class="button" href="$${url(`/properties/${property.id}`)}">Calendars</a></div></div>
${timeline.conflicts.length > 0 ? conflictSummary(timeline.conflicts) : html``}
${calendars.length === 0 ? html`<p class="card empty">No calendars yet: add them on the property's page.</p>` : timelineTable(timeline, exposed)}
${legend()}`;
      return htmlResponse(200, layout({ title: `${property.name} · Timeline`, body, visit, wide: true }));
    }),
  );
}

function timelineTable(timeline: Timeline, exposed: ExposedRow[] = []): SafeHtml {
  const cols = timeline.days.map((day, i) => html`<col class="${dayClass(day, i)}">`);
  const rows = timeline.rows.flatMap((row) =>
    row.lanes.map((lane, index) => html`<tr><th scope="row" class="row-label">${index === 0 ? rowLabel(row) : html``}</th>${cells(timeline.days.length, lane, (bar) => barView(row.source, bar))}</tr>`),
  );
  const conflictRow = timeline.conflicts.length
    ? html`<tr class="conflict-row"><th scope="row" class="row-label"><span class="conflict-label">⚠ Double bookings</span></th>${cells(timeline.days.length, timeline.conflicts, conflictBar)}</tr>`
    : html``;
  // The wrap scrolls sideways: focusable and named, so a keyboard can scroll it too.
  return html`<div class="timeline-wrap card flush" tabindex="0" role="region" aria-label="Timeline: 90 nights, scrolls sideways"><table class="timeline">
  <colgroup><col class="label-col">${cols}</colgroup>
  <thead>
    <tr class="months"><th scope="col"><span class="visually-hidden">Month</span></th>${months(timeline.days)}</tr>
    <tr class="days"><th scope="col"><span class="visually-hidden">Channel</span></th>${timeline.days.map((day, i) => html`<th class="${dayClass(day, i)}" title="${longDay(day)}"><span class="wd">${"SMTWTFS"[weekday(day)]}</span>${Number(day.slice(8))}</th>`)}</tr>
  </thead>
  <tbody>${rows}${conflictRow}${exposed.map((row) => html`<tr class="exposed-row"><th scope="row" class="row-label">${row.label}</th>${cells(timeline.days.length, row.runs, row.view)}</tr>`)}</tbody>
</table></div>`;
}

function rowLabel(row: TimelineRow): SafeHtml {
  const failing = row.failing ? html` <span class="pill failed" title="The last sync of this calendar failed: see the property's page">failing</span>` : html``;
  return html`<span class="chip source-${row.source}">${row.label}</span>${failing}`;
}

// One cell per free night, one spanning cell per bar.
function cells<T extends { column: number; span: number }>(days: number, bars: readonly T[], view: (bar: T) => SafeHtml): SafeHtml[] {
  const out: SafeHtml[] = [];
  const sorted = [...bars].sort((a, b) => a.column - b.column);
  let next = 0;
  for (let column = 0; column < days; ) {
    const bar = sorted[next];
    if (bar && bar.column === column) {
      out.push(html`<td colspan="${bar.span}" class="bar-cell">${view(bar)}</td>`);
      column += bar.span;
      next++;
    } else {
      out.push(html`<td></td>`);
      column++;
    }
  }
  return out;
}

function barView(source: string, bar: TimelineBar): SafeHtml {
  const nights = plural(bar.nights, "night", "nights");
  const classes = ["bar", bar.kind, `source-${source}`, bar.conflict ? "conflict" : "", bar.before ? "before" : "", bar.after ? "after" : ""].filter(Boolean).join(" ");
  // Guest names are what tells stays apart at a glance; "Reserved - " in front of them only takes room.
  const what = bar.summary.replace(/^reserved\s*[-:–]\s*/i, "") || (bar.kind === "block" ? "Blocked" : "Booked");
  // An echo is the channel closing nights calsync's feed gave it: a block, and whose stay it repeats.
  const echo = bar.echoOf ? `echo of ${bar.echoOf.source ? `${bar.echoOf.source} stay` : "a stay no longer active"}` : "";
  const tight = bar.tight ? "tight turnover" : "";
  const detail = `${source} · ${what} · ${shortDay(bar.from)} → ${shortDay(bar.to)} (${nights})${bar.conflict ? " · double booking" : ""}${tight ? ` · ${tight}` : ""}${echo ? ` · ${echo}` : ""}`;
  return html`<div class="${classes}${tight ? " tight" : ""}" title="${detail}">${bar.conflict ? html`<span aria-hidden="true">⚠ </span>` : html``}<span class="bar-text">${what}</span><span class="visually-hidden">, ${shortDay(bar.from)} to ${shortDay(bar.to)}, ${nights}${bar.conflict ? ", double booking" : ""}${tight ? `, ${tight}` : ""}${echo ? `, ${echo}` : ""}</span></div>`;
}

function conflictBar(conflict: TimelineConflict): SafeHtml {
  const detail = `Double booking ${shortDay(conflict.from)} → ${shortDay(conflict.to)}: ${conflict.sources.join(", ")}`;
  return html`<div class="bar conflict-bar" title="${detail}"><span class="bar-text">⚠ Double booking</span><span class="visually-hidden">, ${shortDay(conflict.from)} to ${shortDay(conflict.to)}: ${conflict.sources.join(", ")}</span></div>`;
}

// A channel's booking is cancelled on that channel; a direct stay (CONTRACT §14) only here, so its item links to
// its Cancel stay page.
function conflictSummary(conflicts: readonly TimelineConflict[]): SafeHtml {
  const items = conflicts.map((c) => {
    const direct = c.reservationIds.filter((_, i) => c.sources[i] === "direct");
    const cancel = direct.map((id) => html` <a href="$${url(`/stays/${id}/cancel`)}">Cancel the direct stay in calsync</a>`);
    return html`<li><strong>${longDay(c.from)} → ${longDay(c.to)}</strong> (${plural(c.nights, "night", "nights")}): ${c.sources.map((s, i) => html`<span class="chip source-${s}">${s}</span> ${c.summaries[i] ?? ""} `)}${cancel}</li>`;
  });
  const anyDirect = conflicts.some((c) => c.sources.includes("direct"));
  const advice = anyDirect
    ? "The same nights are sold twice. Cancel a channel's booking on that channel; a direct stay is cancelled here in calsync (Cancel stay)."
    : "The same nights are sold on more than one channel. Cancel one of them on its channel.";
  return html`<section class="card warning-card" role="alert"><h2>⚠ ${plural(conflicts.length, "double booking", "double bookings")}</h2>
  <p class="muted">${advice}</p><ul>${items}</ul></section>`;
}

function months(days: readonly string[]): SafeHtml[] {
  const out: SafeHtml[] = [];
  for (let i = 0; i < days.length; ) {
    const month = days[i]!.slice(0, 7);
    let span = 0;
    while (i + span < days.length && days[i + span]!.startsWith(month)) span++;
    // A few nights of a month have no room for "November 2026" (it would read "November 20"): "Nov 2026".
    const label = span >= 9 ? monthLabel(days[i]!) : span >= 5 ? monthLabel(days[i]!, "short") : "";
    out.push(html`<th scope="colgroup" colspan="${span}" class="month" title="${monthLabel(days[i]!)}">${label}</th>`);
    i += span;
  }
  return out;
}

function legend(): SafeHtml {
  return html`<ul class="legend" aria-label="Legend">
  <li><span class="swatch booking"></span>Booking</li>
  <li><span class="swatch block"></span>Block (owner or channel closed the nights)</li>
  <li><span class="swatch conflict"></span>⚠ Double booking: the same night sold twice</li>
  <li><span class="swatch today"></span>Today</li>
  <li><span class="swatch weekend"></span>Weekend nights (Fri, Sat)</li>
</ul>`;
}

function dayClass(day: string, index: number): string {
  const wd = weekday(day);
  return [index === 0 ? "today" : "", wd === 5 || wd === 6 ? "weekend" : "", day.endsWith("-01") ? "month-start" : ""].filter(Boolean).join(" ");
}
