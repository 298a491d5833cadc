// The Cleaning page (CONTRACT §18): the next 30 days of turnovers across the owner's properties, same-day and
// tight ones marked in words, and the cleaning links (one per property, one for all) with copy, rotate, revoke.
import type { H3 } from "h3";
import { listTurnovers } from "../../../resources/turnovers.js";
import type { Property, PrivateFeed } from "../../../store/types.js";
import { ownerAction, ownerPage, redirectWithFlash, type DashboardContext, type Visit } from "../context.js";
import { html, type SafeHtml } from "../html.js";
import { htmlResponse } from "../http.js";
import { csrfField, layout } from "../layout.js";

/** Path of the page. */
export const CLEANING_PAGE = "/cleaning";

/** Adds GET /cleaning and POST /cleaning/links. */
export function registerCleaning(app: H3, ctx: DashboardContext): void {
  app.get(CLEANING_PAGE, ownerPage(ctx, async (_event, visit) => cleaningPage(ctx, visit)));
  app.post(
    "/cleaning/links",
    ownerAction(ctx, async (_event, visit, form) => {
      const action = form.get("action");
      const propertyId = form.get("property") ?? "";
      if (action !== "make" && action !== "rotate" && action !== "revoke") return redirectWithFlash(visit, CLEANING_PAGE, { tone: "error", text: "Unknown action." });
      let feed: PrivateFeed = "owner-cleaning";
      let id = visit.owner.id;
      if (propertyId !== "") {
        const property = await ctx.store.getProperty(propertyId);
        if (!property || property.ownerId !== visit.owner.id) return redirectWithFlash(visit, CLEANING_PAGE, { tone: "error", text: "No such property." });
        feed = "property-cleaning";
        id = property.id;
      }
      await ctx.store.feedSecret(feed, id, action);
      const text = action === "revoke" ? "Link switched off: it now answers 404." : action === "rotate" ? "New link made: the old one now answers 404." : "Link made.";
      return redirectWithFlash(visit, CLEANING_PAGE, { tone: "ok", text });
    }),
  );
}

async function cleaningPage(ctx: DashboardContext, visit: Visit): Promise<Response> {
  const properties = await ctx.store.listProperties(visit.owner.id);
  const names = new Map(properties.map((p) => [p.id, p.name]));
  const turnovers = [];
  let cursor: string | undefined;
  do {
    const page = await listTurnovers(ctx.store, { ownerId: visit.owner.id, query: { limit: "500", cursor } });
    if (!page.ok) break;
    turnovers.push(...page.value.data);
    cursor = page.value.nextCursor ?? undefined;
  } while (cursor);
  const rows = turnovers.map((t) => {
    // Words, with a space between them, so that a screen reader and a copied row read "Same day Tight".
    const flags = html`${t.sameDay ? html`<span class="pill muted-pill">Same day</span>` : html``} ${t.tight ? html`<span class="pill failed">Tight</span>` : html``}`;
    const next = t.nextArrival ? html`${t.nextArrival.date} at ${t.nextArrival.checkInTime}` : html`<span class="muted">No next arrival booked</span>`;
    return html`<tr><td>${t.date}</td><td>${names.get(t.propertyId) ?? t.propertyId}</td><td>${t.checkOutTime}</td><td>${next}</td><td>${flags}</td></tr>`;
  });
  const schedule = turnovers.length === 0
    ? html`<p class="muted">No guest leaves in the next 30 days.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Turnovers, scrolls sideways on a narrow screen"><table class="data"><caption class="visually-hidden">Turnovers in the next 30 days</caption>
  <thead><tr><th scope="col">Date</th><th scope="col">Property</th><th scope="col">Check-out</th><th scope="col">Next arrival</th><th scope="col">Marks</th></tr></thead>
  <tbody>${rows}</tbody></table></div>`;
  const ownerToken = await ctx.store.feedSecret("owner-cleaning", visit.owner.id, "read");
  const links = [linkRow(visit, "All properties", "", ownerToken, "cleaning-all")];
  for (const property of properties) links.push(linkRow(visit, property.name, property.id, await ctx.store.feedSecret("property-cleaning", property.id, "read"), `cleaning-${property.id}`));
  const body = html`<div class="page-head"><div><h1>Cleaning</h1><p class="muted">Who leaves, and who arrives next, in the next 30 days.</p></div></div>
<section class="card">${schedule}</section>
<section class="card"><h2>Cleaning links</h2>
  <p class="muted">A calendar for the people who clean: one event per turnover from check-out to check-in time, no guest names or channels. Anyone with a link can read it.</p>
  ${links}
</section>`;
  return htmlResponse(200, layout({ title: "Cleaning", body, visit }));
}

function linkRow(visit: Visit, label: string, propertyId: Property["id"] | "", token: string | null, id: string): SafeHtml {
  const button = (action: string, text: string, tone = "") =>
    html`<form method="post" action="/cleaning/links" class="inline-form">${csrfField(visit.csrf)}<input type="hidden" name="property" value="${propertyId}"><input type="hidden" name="action" value="${action}"><button type="submit" class="button small${tone}" aria-label="${text}: ${label}">${text}</button></form>`;
  if (token === null) return html`<div class="stack"><h3>${label}</h3><p class="muted">No link yet.</p>${button("make", "Make link")}</div>`;
  return html`<div class="stack"><h3>${label}</h3>
  <div class="copy-row"><code id="${id}">${visit.facts.origin}/cleaning/${token}.ics</code>
    <button type="button" class="button small" data-copy="${id}" hidden>Copy</button></div>
  ${button("rotate", "Rotate")} ${button("revoke", "Revoke", " danger")}</div>`;
}
