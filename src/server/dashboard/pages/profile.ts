// Settings → Profile (the page is profile-view.ts): the password change, throttled like sign-in, which
// ends every other session.
import type { H3 } from "h3";
import { ownerAction, ownerPage, redirectWithFlash, type DashboardContext } from "../context.js";
import { hashPassword, passwordProblem, verifyPassword } from "../passwords.js";
import { startSession } from "../sessions.js";
import { profilePage } from "./profile-view.js";
import { giveBackAttempt, reserveAttempt, throttleKeys, tryAgainIn } from "../throttle.js";

/** Adds GET /settings/profile and POST /settings/password. */
export function registerProfile(app: H3, ctx: DashboardContext): void {
  app.get("/settings/profile", ownerPage(ctx, (_event, visit) => profilePage(ctx, visit)));

  app.post(
    "/settings/password",
    ownerAction(ctx, async (_event, visit, form) => {
      const now = ctx.now();
      // The current password is a secret a stolen session must not be able to guess at leisure.
      const keys = throttleKeys(visit.owner.email ?? visit.owner.id, visit.facts.clientAddress);
      const attempt = await reserveAttempt(ctx.store, keys, now);
      if (!attempt.allowed) {
        const text = `Too many wrong passwords. ${tryAgainIn(attempt.retryAfterSeconds)}`;
        return profilePage(ctx, visit, { passwordError: { tone: "error", text }, status: 429, headers: { "retry-after": String(attempt.retryAfterSeconds) } });
      }
      const current = form.get("currentPassword") ?? "";
      if (!(await verifyPassword(current, await ctx.store.ownerPasswordHash(visit.owner.id)))) {
        return profilePage(ctx, visit, { passwordError: { tone: "error", text: "The current password is wrong." }, status: 422 });
      }
      await giveBackAttempt(ctx.store, attempt.attempt);
      const next = form.get("password") ?? "";
      const problem = passwordProblem(next);
      if (problem) return profilePage(ctx, visit, { passwordError: { tone: "error", text: problem }, status: 422 });

      // Ends every session of the owner, this one included; this browser gets a fresh one.
      await ctx.store.setOwnerPassword(visit.owner.id, await hashPassword(next));
      const started = await startSession(ctx.store, visit.owner.id, now, visit.facts.https);
      visit.open.cookies = started.cookies;
      return redirectWithFlash(visit, "/settings/profile", { tone: "ok", text: "Password changed. Every other browser is signed out." });
    }),
  );
}
