// /properties/<id>: a property's calendars with the state of their last sync, the form to add one,
// Sync now, the outbound feed URL to paste into the channels, and the website calendar's snippet.
import { getRouterParam, type H3 } from "h3";
import { maskUrl } from "../../../engine/mask-url.js";
import type { Calendar, Property } from "../../../store/types.js";
import { CALENDAR_SOURCES } from "../../../types.js";
import { ownerPage, type DashboardContext, type Visit } from "../context.js";
import { plural, relativeTime } from "../format.js";
import { html, url, type SafeHtml } from "../html.js";
import { htmlResponse } from "../http.js";
import { csrfField, flashAt, flashMessage, layout, type Flash } from "../layout.js";
import { ownedProperty } from "../owned.js";
import { previewCard, type CalendarPreview } from "./calendar-preview.js";
import { channelsSection } from "./channels-section.js";
import { directStaysSection, type StayForm } from "./direct-stays.js";
import { embedSection } from "./embed-snippet.js";
import { turnoverSettingsSection } from "./property-settings.js";
import { notFoundPage } from "./errors.js";
import { syncNowForm } from "./sync-now.js";

/** What the add-calendar form sent, shown again: refused with `error`, or read into `preview` to confirm. */
export interface CalendarForm {
  url: string;
  source: string;
  error?: Flash;
  preview?: CalendarPreview;
}

/** Adds GET /properties/<id>. */
export function registerProperty(app: H3, ctx: DashboardContext): void {
  app.get(
    "/properties/:id",
    ownerPage(ctx, async (event, visit) => {
      const property = await ownedProperty(ctx.store, visit.owner.id, getRouterParam(event, "id"));
      return property ? propertyPage(ctx, visit, property) : notFoundPage(visit);
    }),
  );
}

/**
 * The property page; with `form`, the add-calendar form refused (422) with what was typed, or its preview (200);
 * with `stay`, the direct-stay form refused (409 nights taken, 422 a field) with what was typed.
 */
export async function propertyPage(ctx: DashboardContext, visit: Visit, property: Property, form?: CalendarForm, stay?: StayForm): Promise<Response> {
  const calendars = await ctx.store.listCalendars({ propertyId: property.id });
  const now = ctx.now();
  // The crumb is not called "Properties": that name belongs to the navigation link (CONTRACT §9).
  const body = html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/properties">Overview</a> <span aria-hidden="true">/</span> ${property.name}</nav>
<div class="page-head">
  <div><h1>${property.name}</h1><p class="muted">${zoneText(property)} · ${plural(calendars.length, "calendar", "calendars")}</p></div>
  <div class="actions"><a class="button" href="$${url(`/properties/${property.id}/timeline`)}">Timeline</a>${calendars.length > 0 ? syncNowForm(visit, `/properties/${property.id}`) : html``}</div>
</div>
<section class="card flush">
  <h2 class="card-title">Calendars</h2>
  ${calendars.length === 0 ? html`<p class="empty-row muted">No calendars yet. Paste each channel's calendar export link below.</p>` : calendarTable(visit, calendars, now)}
</section>
${await channelsSection(ctx, visit, property)}
${await directStaysSection(ctx, visit, property, stay)}
${form?.preview ? previewCard(visit, property, form, form.preview) : addCalendarForm(visit, property, form)}
${feedSection(visit, property)}
${embedSection(visit, property)}
${turnoverSettingsSection(visit, property)}`;
  return htmlResponse(form?.error ? 422 : (stay?.status ?? 200), layout({ title: property.name, body, visit }));
}

// The zone decides the property's nights (CONTRACT §8): the owner must be able to see which one was chosen.
function zoneText(property: Property): string {
  return property.timeZone ? `Time zone ${property.timeZone}` : "No time zone set (nights as the channels write them)";
}

function calendarTable(visit: Visit, calendars: Calendar[], now: Date): SafeHtml {
  // On a phone the rows stack, each cell named by its column (data-label): nothing to scroll sideways.
  // consecutiveFailures arrives with a parallel change to the store; shown once calendars carry it.
  const streaks = calendars.some((c) => typeof (c as { consecutiveFailures?: unknown }).consecutiveFailures === "number");
  const rows = calendars.map((calendar) => {
    const failures = (calendar as { consecutiveFailures?: number }).consecutiveFailures;
    return html`<tr class="${calendar.lastStatus === "failed" ? "row-failed" : ""}">
    <td data-label="Channel"><span class="chip source-${calendar.source}">${calendar.source}</span></td>
    <td class="url" data-label="Feed"><code>${maskUrl(calendar.url)}</code></td>
    <td data-label="Last sync">${relativeTime(calendar.lastSyncedAt, now, "not yet")}</td>
    <td data-label="Status">${statusPill(calendar)}</td>
    <td data-label="Error">${calendar.lastStatus === "failed" ? html`<code>${calendar.lastErrorCode ?? "error"}</code><div class="error-text">${calendar.lastErrorMessage ?? ""}</div>` : html``}</td>
    ${streaks ? html`<td class="num" data-label="Failures in a row">${failures ?? 0}</td>` : html``}
    <td class="row-actions"><form method="post" action="$${url(`/calendars/${calendar.id}/remove`)}">${csrfField(visit.csrf)}
      <button type="submit" class="button danger small" aria-label="${`Remove ${calendar.source} calendar`}">Remove</button></form></td>
  </tr>`;
  });
  return html`<div class="table-wrap"><table class="data stack-on-phone">
  <thead><tr><th>Channel</th><th>Feed</th><th>Last sync</th><th>Status</th><th>Error</th>${streaks ? html`<th class="num">Failures in a row</th>` : html``}<th><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`;
}

function statusPill(calendar: Calendar): SafeHtml {
  if (calendar.lastStatus === "success") return html`<span class="pill ok">ok</span>`;
  if (calendar.lastStatus === "failed") return html`<span class="pill failed">failed</span>`;
  return html`<span class="pill muted-pill">not synced yet</span>`;
}

function addCalendarForm(visit: Visit, property: Property, form?: CalendarForm): SafeHtml {
  const chosen = form?.source ?? "";
  const options = CALENDAR_SOURCES.map((s) => html`<option value="${s}"${s === chosen ? html` selected` : html``}>${s}</option>`);
  return html`<section class="card" id="add-calendar">
  <h2>Add a calendar</h2>
  <p class="muted">The channel's calendar <em>export</em> link (.ics). It is checked the way <code>calsync calendar add</code> checks it and read once, as <code>calsync calendar test</code> reads it, to show what a sync will import before anything is saved.</p>
  ${form?.error ? flashMessage(form.error) : html``}
  <form method="post" action="$${url(`/properties/${property.id}/calendars#add-calendar`)}" class="inline-form" data-busy="Reading the feed…">
    ${csrfField(visit.csrf)}
    <label class="field grow"><span>Feed URL</span><input type="url" name="url" value="${form?.url ?? ""}" required placeholder="https://www.airbnb.com/calendar/ical/….ics?s=…" autocomplete="off"></label>
    <div class="field"><label for="calendar-source">Channel</label><select id="calendar-source" name="source"><option value="">Detect from the link</option>${options}</select></div>
    <button type="submit" class="button primary">Add calendar</button>
  </form>
</section>`;
}

function feedSection(visit: Visit, property: Property): SafeHtml {
  const action = url(`/properties/${property.id}/feed`);
  if (!property.feedToken) {
    return html`<section class="card" id="feed"><h2>Outbound feed</h2>
  ${flashAt(visit, "feed")}
  <p class="muted">One merged calendar of this property's nights, for each channel's "import calendar" box, so no channel sells a night another one sold.</p>
  <form method="post" action="$${action}">${csrfField(visit.csrf)}<button type="submit" class="button">Create feed URL</button></form></section>`;
  }
  const feedUrl = `${visit.facts.origin}/ical/${property.feedToken}.ics`;
  return html`<section class="card" id="feed"><h2>Outbound feed</h2>
  ${flashAt(visit, "feed")}
  <p class="muted">Paste this into each channel's "import calendar" box, adding <code>?exclude=</code> and the channel's own name (e.g. <code>?exclude=airbnb</code> for Airbnb) so it does not import its own bookings back.</p>
  <div class="copy-row"><code class="feed-url" id="feed-url">${feedUrl}</code>
    <button type="button" class="button small" data-copy="feed-url" hidden>Copy</button></div>
  <form method="post" action="$${action}" class="rotate-form">${csrfField(visit.csrf)}<input type="hidden" name="rotate" value="1">
    <button type="submit" class="button ghost small">Rotate</button>
    <span class="hint">A new URL; the old one stops working at once and every channel needs the new one.</span></form>
</section>`;
}
