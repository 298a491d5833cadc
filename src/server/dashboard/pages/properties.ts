// /properties: every property at a glance (calendars, their health, double bookings) and the form to add one.
import type { H3 } from "h3";
import { findConflicts, type ConflictInput } from "../../../engine/conflicts.js";
import { addDays, todayAt } from "../../../engine/nights.js";
import type { Calendar, Property, ReservationRow } from "../../../store/types.js";
import { ownerAction, ownerPage, redirectWithFlash, type DashboardContext, type Visit } from "../context.js";
import { longDay, plural, relativeTime } from "../format.js";
import { html, url, type SafeHtml } from "../html.js";
import { htmlResponse, redirect } from "../http.js";
import { csrfField, flashMessage, layout, type Flash } from "../layout.js";
import { MAX_PROPERTY_NAME_LENGTH } from "../../../store/property-name.js";
import { createPropertyInZone, isKnownTimeZone, TIME_ZONES } from "../time-zones.js";
import { syncNowForm } from "./sync-now.js";
import { channelAlerts } from "./channel-alerts.js";


/** Adds GET /, GET /properties and POST /properties. */
export function registerProperties(app: H3, ctx: DashboardContext): void {
  app.get("/", () => redirect("/properties"));
  app.get("/properties", ownerPage(ctx, (_event, visit) => propertiesPage(ctx, visit)));

  app.post(
    "/properties",
    ownerAction(ctx, async (_event, visit, form) => {
      const name = (form.get("name") ?? "").trim();
      const timeZone = form.get("timeZone") ?? "";
      const problem =
        name === "" ? "Give the property a name." : name.length > MAX_PROPERTY_NAME_LENGTH ? `Keep the name to ${MAX_PROPERTY_NAME_LENGTH} characters or fewer.` : !isKnownTimeZone(timeZone) ? "Choose a time zone from the list." : undefined;
      if (problem) return propertiesPage(ctx, visit, { error: { tone: "error", text: problem }, name, timeZone });
      const property = await createPropertyInZone(ctx.store, visit.owner.id, name, timeZone || null);
      return redirectWithFlash(visit, `/properties/${property.id}`, { tone: "ok", text: `Added ${property.name}. Now add its calendars.` });
    }),
  );
}

interface AddForm {
  error: Flash;
  name: string;
  timeZone: string;
}

async function propertiesPage(ctx: DashboardContext, visit: Visit, form?: AddForm): Promise<Response> {
  const ownerId = visit.owner.id;
  const [properties, calendars, reservations] = await Promise.all([
    ctx.store.listProperties(ownerId),
    ctx.store.listCalendars({ ownerId }),
    ctx.store.listReservations({ ownerId, status: "active" }),
  ]);
  const byId = new Map(properties.map((p) => [p.id, p]));
  const inputs: ConflictInput[] = reservations.map((r) => ({
    ...r,
    propertyName: byId.get(r.propertyId)?.name ?? "",
    propertyTimeZone: byId.get(r.propertyId)?.timeZone ?? null,
  }));
  const now = ctx.now();
  const conflicts = findConflicts(inputs, { now });
  const alerts = await channelAlerts(ctx, properties, now);

  const cards = properties.map((property) =>
    propertyCard(property, {
      calendars: calendars.filter((c) => c.propertyId === property.id),
      conflicts: conflicts.filter((c) => c.propertyId === property.id).length,
      next: nextCheckIn(reservations.filter((r) => r.propertyId === property.id), todayAt(now, property.timeZone)),
      now,
      today: todayAt(now, property.timeZone),
      channelAlert: alerts.get(property.id),
    }),
  );
  const body = html`<div class="page-head">
  <div><h1>Properties</h1><p class="muted">${plural(properties.length, "property", "properties")}, ${plural(calendars.length, "calendar", "calendars")}</p></div>
  ${calendars.length > 0 ? syncNowForm(visit, "/properties") : html``}
</div>
${properties.length === 0 ? html`<div class="card empty"><h2>No properties yet</h2><p class="muted">Add your first rental below, then paste each channel's calendar export link into it.</p></div>` : html`<ul class="property-grid" role="list">${cards}</ul>`}
${addPropertyForm(visit, form)}`;
  return htmlResponse(form ? 422 : 200, layout({ title: "Properties", body, visit }));
}

interface CardFacts {
  calendars: Calendar[];
  conflicts: number;
  next: ReservationRow | undefined;
  now: Date;
  today: string;
  /** The overview's mark of channel links that need the owner (CONTRACT §17), if any. */
  channelAlert?: SafeHtml | undefined;
}

// The first booking (not block) whose first night is today or later.
function nextCheckIn(reservations: ReservationRow[], today: string): ReservationRow | undefined {
  const upcoming = reservations.filter((r) => r.kind === "booking" && r.arrival >= today);
  return upcoming.sort((a, b) => (a.arrival < b.arrival ? -1 : 1))[0];
}

function dayName(date: string, today: string): string {
  return date === today ? "today" : date === addDays(today, 1) ? "tomorrow" : longDay(date);
}

function propertyCard(property: Property, { calendars, conflicts, next, now, today, channelAlert }: CardFacts): SafeHtml {
  const failing = calendars.filter((c) => c.lastStatus === "failed").length;
  const lastSync = calendars.map((c) => c.lastSyncedAt).filter((t): t is string => t !== null).sort().at(-1) ?? null;
  const health =
    calendars.length === 0
      ? html`<span class="pill muted-pill">no calendars</span>`
      : failing > 0
        ? html`<span class="pill failed">${plural(failing, "calendar failing", "calendars failing")}</span>`
        : calendars.every((c) => c.lastStatus === "success")
          ? html`<span class="pill ok">all calendars ok</span>`
          : html`<span class="pill muted-pill">not synced yet</span>`;
  const channels = calendars.map((c) => html`<span class="chip source-${c.source}">${c.source}</span>`);
  return html`<li class="card property-card">
  <h2><a href="$${url(`/properties/${property.id}`)}">${property.name}</a></h2>
  <p class="chips">${channels}</p>
  <p class="health">${health}${conflicts > 0 ? html` <span class="pill conflict">⚠ ${plural(conflicts, "double booking", "double bookings")}</span>` : html``}${channelAlert ?? html``}</p>
  <p class="small">${next ? html`Next check-in <strong>${dayName(next.arrival, today)}</strong> <span class="chip source-${next.source}">${next.source}</span>` : html`<span class="muted">No upcoming check-ins</span>`}</p>
  <p class="muted small">Last sync ${relativeTime(lastSync, now)}</p>
  <p class="card-links"><a href="$${url(`/properties/${property.id}/timeline`)}">Timeline</a></p>
</li>`;
}

function addPropertyForm(visit: Visit, form?: AddForm): SafeHtml {
  const chosen = form?.timeZone ?? "";
  const zones = TIME_ZONES.map((zone) => html`<option value="${zone}"${zone === chosen ? html` selected` : html``}>${zone}</option>`);
  return html`<section class="card" id="add-property">
  <h2>Add a property</h2>
  ${form ? flashMessage(form.error) : html``}
  <form method="post" action="/properties" class="inline-form">
    ${csrfField(visit.csrf)}
    <label class="field grow"><span>Name</span><input type="text" name="name" value="${form?.name ?? ""}" maxlength="${MAX_PROPERTY_NAME_LENGTH}" required placeholder="Sea View Loft"></label>
    <div class="field"><label for="property-zone">Time zone</label><select id="property-zone" name="timeZone"><option value="">Not set (dates as the channels write them)</option>${zones}</select></div>
    <button type="submit" class="button primary">Add property</button>
  </form>
</section>`;
}
