// "Forgot password?" (CONTRACT §16): a one-time link by mail, valid 1 h, stored hashed (as an invite is, see
// invite.ts for /reset/<token>). The answer is the same whether the email is known or not, and asking is
// throttled like sign-in. Without mail, the page says whom to ask instead.
import type { H3 } from "h3";
import { hashSecret, newSecret, normalizeEmail } from "../../accounts.js";
import { mailLinkBase } from "../../mail/links.js";
import { anonymousCsrf, publicAction, type DashboardContext } from "../context.js";
import { html } from "../html.js";
import { htmlResponse, requestFacts, type RequestFacts } from "../http.js";
import { csrfField, flashMessage, layout, type Flash } from "../layout.js";
import { reserveAttempt, throttleKeys, tryAgainIn } from "../throttle.js";

/** How long a reset link works. */
export const RESET_LIFETIME_MS = 3_600_000;

/** Adds GET/POST /forgot-password. */
export function registerForgotPassword(app: H3, ctx: DashboardContext): void {
  app.get("/forgot-password", (event) => forgotPage(ctx, requestFacts(event, ctx.trustProxy)));

  app.post(
    "/forgot-password",
    publicAction(ctx, async (_event, facts, form) => {
      const { mail } = ctx;
      if (!mail) return forgotPage(ctx, facts);
      const email = normalizeEmail(form.get("email") ?? "");
      const now = ctx.now();
      // Every request counts, under keys of its own: mails must not be sent by the thousand, and an owner who
      // just mistyped their password ten times must still be able to ask for a link.
      const keys = throttleKeys(`reset:${email}`, `reset:${facts.clientAddress}`);
      // Reserved before anything is looked up, and never given back: a burst gets at most the window's count.
      const attempt = await reserveAttempt(ctx.store, keys, now);
      if (!attempt.allowed) {
        const flash: Flash = { tone: "error", text: `Too many requests. ${tryAgainIn(attempt.retryAfterSeconds)}` };
        return forgotPage(ctx, facts, { email, flash, status: 429, headers: { "retry-after": String(attempt.retryAfterSeconds) } });
      }

      const owner = email ? await ctx.store.findOwnerByEmail(email) : undefined;
      if (owner) {
        const token = newSecret();
        const expiresAt = new Date(now.getTime() + RESET_LIFETIME_MS);
        const url = `${mailLinkBase(mail)}/reset/${token}`;
        await ctx.store.createInvite({
          ownerId: owner.id,
          hash: hashSecret(token),
          expiresAt,
          mail: { kind: "password_reset", payload: { url, expiresAt: expiresAt.toISOString() }, expiresAt },
        });
        mail.wake();
      }
      // The same words either way: the page must not tell who has an account.
      const flash: Flash = { tone: "ok", text: `If an account signs in with ${email || "that address"}, a link to choose a new password is on its way. It works for one hour.` };
      return forgotPage(ctx, facts, { flash });
    }),
  );
}

interface ForgotState {
  email?: string;
  flash?: Flash;
  status?: number;
  headers?: Record<string, string>;
}

function forgotPage(ctx: DashboardContext, facts: RequestFacts, state: ForgotState = {}): Response {
  const { csrf, cookies } = anonymousCsrf(facts, newSecret);
  const body = ctx.mail
    ? html`<section class="card narrow auth">
  <h1>Forgot password?</h1>
  <p class="muted">We email you a link to choose a new password. It works once, for one hour.</p>
  ${state.flash ? flashMessage(state.flash) : html``}
  <form method="post" action="/forgot-password" class="stack">
    ${csrfField(csrf)}
    <label class="field"><span>Email</span>
      <input type="email" name="email" value="${state.email ?? ""}" autocomplete="username" required autofocus></label>
    <button type="submit" class="button primary">Send reset link</button>
  </form>
  <p class="hint"><a href="/sign-in">Back to sign in</a></p>
</section>`
    : html`<section class="card narrow auth">
  <h1>Forgot password?</h1>
  <p>This server does not send email. Ask the person who runs it for a new link: they make one with <code>calsync owner invite</code>.</p>
  <p class="hint"><a href="/sign-in">Back to sign in</a></p>
</section>`;
  return htmlResponse(state.status ?? 200, layout({ title: "Forgot password?", body }), { cookies, headers: state.headers });
}
