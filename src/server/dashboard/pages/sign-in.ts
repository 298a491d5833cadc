// Sign-in by email and password, throttled per email and per client address; sign-out.
import type { H3 } from "h3";
import { newSecret, normalizeEmail } from "../../accounts.js";
import { anonymousCsrf, forgetTwoSessions, ownerAction, publicAction, takeFlash, TWO_SESSIONS_FLASH, type DashboardContext } from "../context.js";
import { html } from "../html.js";
import { htmlResponse, redirect, requestFacts, safeLocalPath, type RequestFacts } from "../http.js";
import { csrfField, flashMessage, layout, type Flash } from "../layout.js";
import { verifyPassword } from "../passwords.js";
import { clearSessionCookie, endPresentedSessions, presentedSession, resumeSession, startSession } from "../sessions.js";
import { giveBackAttempt, reserveAttempt, throttleKeys, tryAgainIn } from "../throttle.js";

/** Adds GET/POST /sign-in and POST /sign-out. */
export function registerSignIn(app: H3, ctx: DashboardContext): void {
  app.get("/sign-in", async (event) => {
    const facts = requestFacts(event, ctx.trustProxy);
    const next = safeLocalPath(event.url.searchParams.get("next") ?? "/properties");
    const twoSessions = await forgetTwoSessions(ctx, event.url.pathname, facts);
    if (twoSessions.length > 0) return signInPage(facts, { next, flash: TWO_SESSIONS_FLASH, cookies: twoSessions });
    if (await resumeSession(ctx.store, presentedSession(facts).secret, ctx.now(), facts.https)) return redirect(next);
    const { flash, cookies } = takeFlash(facts);
    return signInPage(facts, { next, cookies, ...(flash ? { flash } : {}) });
  });

  app.post(
    "/sign-in",
    publicAction(ctx, async (_event, facts, form) => {
      const email = normalizeEmail(form.get("email") ?? "");
      const password = form.get("password") ?? "";
      const next = safeLocalPath(form.get("next") ?? "/properties");
      const keys = throttleKeys(email, facts.clientAddress);
      const now = ctx.now();

      // Counted before the password is checked: a burst cannot outrun its own count (CONTRACT §9).
      const attempt = await reserveAttempt(ctx.store, keys, now);
      if (!attempt.allowed) {
        const flash: Flash = { tone: "error", text: `Too many failed sign-ins. ${tryAgainIn(attempt.retryAfterSeconds)}` };
        return signInPage(facts, { next, email, flash, status: 429, headers: { "retry-after": String(attempt.retryAfterSeconds) } });
      }

      const owner = email ? await ctx.store.findOwnerByEmail(email) : undefined;
      const hash = owner ? await ctx.store.ownerPasswordHash(owner.id) : null;
      // Checked even for an unknown email, so the answer takes as long either way.
      if (!(await verifyPassword(password, hash)) || !owner) {
        return signInPage(facts, { next, email, flash: { tone: "error", text: "Wrong email or password." }, status: 422 });
      }

      await giveBackAttempt(ctx.store, attempt.attempt);
      // A new session id at every sign-in; the browser's previous session (if any) ends.
      const presented = presentedSession(facts);
      await endPresentedSessions(ctx.store, presented.secret ? [presented.secret] : presented.ambiguous);
      const started = await startSession(ctx.store, owner.id, now, facts.https);
      return redirect(next, started.cookies);
    }),
  );

  app.post(
    "/sign-out",
    ownerAction(ctx, async (_event, visit) => {
      await ctx.store.deleteSession(visit.open.session.id);
      visit.open.cookies = [];
      return redirect("/sign-in", [clearSessionCookie(visit.facts.https)]);
    }),
  );
}

interface SignInState {
  next: string;
  email?: string;
  flash?: Flash;
  status?: number;
  headers?: Record<string, string>;
  /** More `Set-Cookie` values to send (a flash shown, stale cookies removed). */
  cookies?: string[];
}

function signInPage(facts: RequestFacts, state: SignInState): Response {
  const { csrf, cookies: csrfCookies } = anonymousCsrf(facts, newSecret);
  const cookies = [...csrfCookies, ...(state.cookies ?? [])];
  const body = html`<section class="card narrow auth">
  <h1>Sign in</h1>
  <p class="muted">Your calendars, API tokens and sync status.</p>
  ${state.flash ? flashMessage(state.flash) : html``}
  <form method="post" action="/sign-in" class="stack">
    ${csrfField(csrf)}
    <input type="hidden" name="next" value="${state.next}">
    <label class="field"><span>Email</span>
      <input type="email" name="email" value="${state.email ?? ""}" autocomplete="username" required autofocus></label>
    <label class="field"><span>Password</span>
      <input type="password" name="password" autocomplete="current-password" required></label>
    <button type="submit" class="button primary">Sign in</button>
  </form>
  <p class="hint"><a href="/forgot-password">Forgot password?</a></p>
  <p class="hint">No password yet? Ask whoever runs this server for an invite link (<code>calsync owner invite</code>).</p>
</section>`;
  return htmlResponse(state.status ?? 200, layout({ title: "Sign in", body }), { cookies, headers: state.headers });
}
