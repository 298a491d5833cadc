// The property page's "Turnovers" card (CONTRACT §18): check-in and check-out times, buffer nights and cleaner
// addresses, checked by the same reader as the API's PATCH and the CLI's flags.
import { getRouterParam, type H3 } from "h3";
import { readPropertyChanges } from "../../../resources/property-settings.js";
import type { Property } from "../../../store/types.js";
import { ownerAction, redirectWithFlash, type DashboardContext, type Visit } from "../context.js";
import { html, url, type SafeHtml } from "../html.js";
import { csrfField } from "../layout.js";
import { ownedProperty } from "../owned.js";
import { notFoundPage } from "./errors.js";

const LABELS: Record<string, string> = {
  checkInTime: "Check-in",
  checkOutTime: "Check-out",
  bufferNights: "Buffer nights",
  cleanerEmails: "Cleaner emails",
};

/** Adds POST /properties/:id/settings. */
export function registerPropertySettings(app: H3, ctx: DashboardContext): void {
  app.post(
    "/properties/:id/settings",
    ownerAction(ctx, async (event, visit, form) => {
      const property = await ownedProperty(ctx.store, visit.owner.id, getRouterParam(event, "id"));
      if (!property) return notFoundPage(visit);
      const buffer = (form.get("bufferNights") ?? "").trim();
      const body = {
        checkInTime: (form.get("checkInTime") ?? "").trim(),
        checkOutTime: (form.get("checkOutTime") ?? "").trim(),
        bufferNights: /^\d{1,2}$/.test(buffer) ? Number(buffer) : buffer,
        // One address a line (or separated by commas): the form's textarea.
        cleanerEmails: (form.get("cleanerEmails") ?? "").split(/[\n,;]+/).map((e) => e.trim()).filter(Boolean),
      };
      const back = `/properties/${property.id}#turnovers`;
      const changes = readPropertyChanges(body);
      if (!changes.ok) {
        const label = LABELS[changes.problem.name] ?? changes.problem.name;
        return redirectWithFlash(visit, back, { tone: "error", text: `${label}: ${changes.problem.message}. Nothing was saved.` });
      }
      await ctx.store.updateProperty(property.id, changes.value);
      return redirectWithFlash(visit, back, { tone: "ok", text: "Turnover settings saved." });
    }),
  );
}

/** The card with the form, filled with the stored settings. */
export function turnoverSettingsSection(visit: Visit, property: Property): SafeHtml {
  return html`<section class="card" id="turnovers"><h2>Turnovers</h2>
  <p class="muted">Times are in the property's time zone. Buffer nights stay free before and after every booking, on every channel.</p>
  <form method="post" action="$${url(`/properties/${property.id}/settings`)}" class="stack">
    ${csrfField(visit.csrf)}
    <label>Check-in <input type="time" name="checkInTime" value="${property.checkInTime}" required></label>
    <label>Check-out <input type="time" name="checkOutTime" value="${property.checkOutTime}" required></label>
    <label>Buffer nights <input type="number" name="bufferNights" min="0" max="7" step="1" value="${String(property.bufferNights)}" required></label>
    <label>Cleaner emails <textarea name="cleanerEmails" rows="3" aria-describedby="cleaners-hint">${property.cleanerEmails.join("\n")}</textarea></label>
    <p class="hint" id="cleaners-hint">Up to 5 addresses, one a line.</p>
    <button type="submit" class="button primary">Save turnover settings</button>
  </form>
</section>`;
}
