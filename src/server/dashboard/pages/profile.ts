// Settings → Profile: who is signed in, and a password change that ends every other session.
import type { H3 } from "h3";
import { ownerAction, ownerPage, redirectWithFlash, type DashboardContext, type Visit } from "../context.js";
import { html } from "../html.js";
import { htmlResponse } from "../http.js";
import { csrfField, flashMessage, layout, type Flash } from "../layout.js";
import { hashPassword, MIN_PASSWORD_LENGTH, passwordProblem, verifyPassword } from "../passwords.js";
import { startSession } from "../sessions.js";
import { giveBackAttempt, reserveAttempt, throttleKeys, tryAgainIn } from "../throttle.js";

/** Adds GET /settings/profile and POST /settings/password. */
export function registerProfile(app: H3, ctx: DashboardContext): void {
  app.get("/settings/profile", ownerPage(ctx, async (_event, visit) => profilePage(visit)));

  app.post(
    "/settings/password",
    ownerAction(ctx, async (_event, visit, form) => {
      const now = ctx.now();
      // The current password is a secret a stolen session must not be able to guess at leisure.
      const keys = throttleKeys(visit.owner.email ?? visit.owner.id, visit.facts.clientAddress);
      const attempt = await reserveAttempt(ctx.store, keys, now);
      if (!attempt.allowed) {
        const text = `Too many wrong passwords. ${tryAgainIn(attempt.retryAfterSeconds)}`;
        return profilePage(visit, { tone: "error", text }, 429, { "retry-after": String(attempt.retryAfterSeconds) });
      }
      const current = form.get("currentPassword") ?? "";
      if (!(await verifyPassword(current, await ctx.store.ownerPasswordHash(visit.owner.id)))) {
        return profilePage(visit, { tone: "error", text: "The current password is wrong." }, 422);
      }
      await giveBackAttempt(ctx.store, attempt.attempt);
      const next = form.get("password") ?? "";
      const problem = passwordProblem(next);
      if (problem) return profilePage(visit, { tone: "error", text: problem }, 422);

      // Ends every session of the owner, this one included; this browser gets a fresh one.
      await ctx.store.setOwnerPassword(visit.owner.id, await hashPassword(next));
      const started = await startSession(ctx.store, visit.owner.id, now, visit.facts.https);
      visit.open.cookies = started.cookies;
      return redirectWithFlash(visit, "/settings/profile", { tone: "ok", text: "Password changed. Every other browser is signed out." });
    }),
  );
}

function profilePage(visit: Visit, error?: Flash, status = 200, headers?: Record<string, string>): Response {
  const body = html`<div class="page-head"><div><h1>Profile</h1><p class="muted">${visit.owner.name} · ${visit.owner.email ?? "no email"}</p></div></div>
<section class="card narrow-left">
  <h2>Change password</h2>
  ${error ? flashMessage(error) : html``}
  <form method="post" action="/settings/password" class="stack">
    ${csrfField(visit.csrf)}
    <input type="email" name="email" value="${visit.owner.email ?? ""}" autocomplete="username" hidden>
    <label class="field"><span>Current password</span><input type="password" name="currentPassword" autocomplete="current-password" required></label>
    <label class="field"><span>New password</span><input type="password" name="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required></label>
    <p class="hint">At least ${MIN_PASSWORD_LENGTH} characters. Changing it signs out every other browser.</p>
    <button type="submit" class="button primary">Change password</button>
  </form>
</section>`;
  return htmlResponse(status, layout({ title: "Profile", body, visit }), { headers });
}
