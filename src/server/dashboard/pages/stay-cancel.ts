// Cancel stay (CONTRACT §14's dashboard part), asked first: a guest's booking must not go in one tap with no
// undo. The list's "Cancel stay" opens GET /stays/<id>/cancel, a page naming the stay with its year; its
// form (POST, `confirm=yes`) cancels. A POST without `confirm` (a page from before this step) asks too.
import { getRouterParam, type H3 } from "h3";
import { cancelDirectStay } from "../../../resources/index.js";
import type { Reservation } from "../../../resource-types.js";
import type { Property } from "../../../store/types.js";
import { ownerAction, ownerPage, redirectWithFlash, type DashboardContext, type Visit } from "../context.js";
import { html, url } from "../html.js";
import { htmlResponse } from "../http.js";
import { csrfField, layout, type Flash } from "../layout.js";
import { ownedProperty } from "../owned.js";
import { channelName, nightsText, resourceContext } from "./direct-stays.js";
import { errorPage, notFoundPage } from "./errors.js";

/** Adds GET and POST /stays/<id>/cancel. */
export function registerStayCancel(app: H3, ctx: DashboardContext): void {
  app.get(
    "/stays/:id/cancel",
    ownerPage(ctx, async (event, visit) => {
      const found = await ownedStay(ctx, visit, getRouterParam(event, "id"));
      return found ? confirmPage(visit, found.property, found.stay) : notFoundPage(visit);
    }),
  );

  app.post(
    "/stays/:id/cancel",
    ownerAction(ctx, async (event, visit, form) => {
      const found = await ownedStay(ctx, visit, getRouterParam(event, "id"));
      if (!found) return notFoundPage(visit);
      const { property, stay } = found;
      if (form.get("confirm") !== "yes" && stay.source === "direct" && stay.status === "active") return confirmPage(visit, property, stay);
      const cancelled = await cancelDirectStay(resourceContext(ctx), { ownerId: visit.owner.id, reservationId: stay.id });
      const flash: Flash = cancelled.ok
        ? { tone: "ok", text: `Cancelled the stay of ${nightsText(stay.arrival, stay.departure)}: its nights are free again.`, at: "direct-stays" }
        : { tone: "error", text: cancelled.code === "not_direct" ? `That stay came from ${channelName(stay.source)}: cancel it there.` : cancelled.message, at: "direct-stays" };
      return redirectWithFlash(visit, `/properties/${property.id}#direct-stays`, flash);
    }),
  );
}

// The stay and its property when both are the owner's; another owner's id reads as unknown.
async function ownedStay(ctx: DashboardContext, visit: Visit, id: string | undefined): Promise<{ property: Property; stay: Reservation } | undefined> {
  const found = id ? await ctx.store.getReservation(id) : undefined;
  if (!found || found.ownerId !== visit.owner.id) return undefined;
  const property = await ownedProperty(ctx.store, visit.owner.id, found.reservation.propertyId);
  return property ? { property, stay: found.reservation } : undefined;
}

function confirmPage(visit: Visit, property: Property, stay: Reservation): Response {
  const back = `/properties/${property.id}#direct-stays`;
  if (stay.source !== "direct") {
    return errorPage(409, "Not a direct stay", `That stay came from ${channelName(stay.source)}: cancel it there.`, { visit });
  }
  const nights = nightsText(stay.arrival, stay.departure);
  const what = stay.kind === "block" ? "Blocked nights" : "Booking";
  const body = html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/properties">Overview</a> <span aria-hidden="true">/</span>
  <a href="$${url(back)}">${property.name}</a> <span aria-hidden="true">/</span> Cancel stay</nav>
<section class="card narrow-left confirm-card" aria-labelledby="cancel-heading">
  <h1 id="cancel-heading">${stay.status === "active" ? "Cancel this stay?" : "This stay is cancelled"}</h1>
  <dl class="facts">
    <div class="wide"><dt>Nights</dt><dd>${nights}</dd></div>
    <div><dt>Kind</dt><dd>${what}</dd></div>
    <div><dt>Summary</dt><dd>${stay.summary}</dd></div>
    ${stay.note ? html`<div class="wide"><dt>Note</dt><dd>${stay.note}</dd></div>` : html``}
  </dl>
  ${
    stay.status === "active"
      ? html`<p>Its nights become free: the outbound feed stops closing them, and each channel opens them when it next reads the feed. There is no undo: to hold the nights again, add the stay again.</p>
  <form method="post" action="$${url(`/stays/${stay.id}/cancel`)}">${csrfField(visit.csrf)}<input type="hidden" name="confirm" value="yes">
    <div class="actions"><button type="submit" class="button danger">Cancel stay</button><a class="button" href="$${url(back)}">Keep it</a></div>
  </form>`
      : html`<p class="muted">Its nights are already free.</p><p><a class="button" href="$${url(back)}">Back to ${property.name}</a></p>`
  }
</section>`;
  return htmlResponse(200, layout({ title: `Cancel stay · ${property.name}`, body, visit }));
}
