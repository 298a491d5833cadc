// Notifications (CONTRACT §16): which mails an owner gets, two checkboxes both on by default. A page of its
// own with its own navigation link, so it can move under Settings with the rest of the owner's settings.
import type { H3 } from "h3";
import { ownerAction, ownerPage, redirectWithFlash, type DashboardContext, type Visit } from "../context.js";
import { html } from "../html.js";
import { htmlResponse } from "../http.js";
import { csrfField, layout } from "../layout.js";

/** Adds GET/POST /settings/notifications. */
export function registerNotifications(app: H3, ctx: DashboardContext): void {
  app.get(
    "/settings/notifications",
    ownerPage(ctx, async (_event, visit) => notificationsPage(ctx, visit)),
  );

  app.post(
    "/settings/notifications",
    ownerAction(ctx, async (_event, visit, form) => {
      // An unticked checkbox sends nothing: absent is off.
      await ctx.store.setOwnerNotifications(visit.owner.id, { conflicts: form.has("conflicts"), calendars: form.has("calendars"), channels: form.has("channels") });
      return redirectWithFlash(visit, "/settings/notifications", { tone: "ok", text: "Notifications saved." });
    }),
  );
}

async function notificationsPage(ctx: DashboardContext, visit: Visit): Promise<Response> {
  const settings = await ctx.store.ownerNotifications(visit.owner.id);
  const checked = (on: boolean) => (on ? html` checked` : html``);
  const note = !ctx.mail
    ? html`<p class="hint">This server does not send email (it runs without <code>--smtp-url</code>): these choices apply once it does.</p>`
    : !visit.owner.email
      ? html`<p class="hint">Your account has no email address, so no mail is sent.</p>`
      : html`<p class="hint">Mails go to ${visit.owner.email}.</p>`;
  const body = html`<div class="page-head"><div><h1>Notifications</h1><p class="muted">What calsync emails you about.</p></div></div>
<section class="card narrow-left">
  ${note}
  <form method="post" action="/settings/notifications" class="stack">
    ${csrfField(visit.csrf)}
    <label class="check"><input type="checkbox" name="conflicts" value="on"${checked(settings.conflicts)}> Email me about double bookings</label>
    <label class="check"><input type="checkbox" name="calendars" value="on"${checked(settings.calendars)}> Email me about failing calendars</label>
    <label class="check"><input type="checkbox" name="channels" value="on"${checked(settings.channels)}> Email me when a channel stops reading my calendar</label>
    <button type="submit" class="button primary">Save</button>
  </form>
</section>`;
  return htmlResponse(200, layout({ title: "Notifications", body, visit }));
}
