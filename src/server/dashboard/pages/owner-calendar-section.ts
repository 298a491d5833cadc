// Settings → Profile's "Your calendar" card (CONTRACT §18): the owner's own calendar link, with what it carries
// (guest details: personal data), and Make, Rotate and Revoke.
import type { H3 } from "h3";
import type { DashboardContext, Visit } from "../context.js";
import { ownerAction, redirectWithFlash } from "../context.js";
import { html, type SafeHtml } from "../html.js";
import { csrfField } from "../layout.js";

const BACK = "/settings/profile#your-calendar";

/** Adds POST /settings/calendar (action: make, rotate, revoke). */
export function registerOwnerCalendarSettings(app: H3, ctx: DashboardContext): void {
  app.post(
    "/settings/calendar",
    ownerAction(ctx, async (_event, visit, form) => {
      const action = form.get("action");
      if (action !== "make" && action !== "rotate" && action !== "revoke") return redirectWithFlash(visit, BACK, { tone: "error", text: "Unknown action." });
      await ctx.store.feedSecret("owner-calendar", visit.owner.id, action);
      const text = action === "revoke" ? "Calendar link switched off: it now answers 404." : action === "rotate" ? "New calendar link: the old one now answers 404." : "Calendar link made.";
      return redirectWithFlash(visit, BACK, { tone: "ok", text });
    }),
  );
}

/** The card; reading it never makes a link. */
export async function ownerCalendarSection(ctx: DashboardContext, visit: Visit): Promise<SafeHtml> {
  const token = await ctx.store.feedSecret("owner-calendar", visit.owner.id, "read");
  const button = (action: string, text: string, tone = "") =>
    html`<form method="post" action="/settings/calendar" class="inline-form">${csrfField(visit.csrf)}<input type="hidden" name="action" value="${action}"><button type="submit" class="button small${tone}">${text}</button></form>`;
  const link = token === null
    ? html`<p class="muted">No link yet.</p>${button("make", "Make calendar link")}`
    : html`<div class="copy-row"><code id="owner-calendar-url">${visit.facts.origin}/ical/owner/${token}.ics</code>
    <button type="button" class="button small" data-copy="owner-calendar-url" hidden>Copy</button></div>
    ${button("rotate", "Rotate calendar link")} ${button("revoke", "Revoke calendar link", " danger")}`;
  return html`<section class="card narrow-left" id="your-calendar" aria-labelledby="your-calendar-heading">
  <h2 id="your-calendar-heading">Your calendar</h2>
  <p>Every stay of every property, with its channel, summary, your notes and what the channel sends (such as a reservation link and the last digits of the guest's phone), for your phone or Home Assistant.</p>
  <p class="hint"><strong>This link carries personal data of your guests.</strong> Keep it to yourself; if it is shared by mistake, rotate or revoke it.</p>
  ${link}
</section>`;
}
