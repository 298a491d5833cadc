// /invite/<token>: the one-time link of `calsync owner invite`, where an owner chooses a password
// and is signed in; /reset/<token>: the same for the "Forgot password?" mail (valid 1 h). Using either
// retires the owner's other links and ends their other sessions.
import { getRouterParam, type H3 } from "h3";
import type { Owner } from "../../../store/types.js";
import { hashSecret, newSecret } from "../../accounts.js";
import { anonymousCsrf, publicAction, redirectWithFlash, type DashboardContext } from "../context.js";
import { html, url } from "../html.js";
import { htmlResponse, requestFacts, type RequestFacts } from "../http.js";
import { csrfField, flashMessage, layout, type Flash } from "../layout.js";
import { hashPassword, MIN_PASSWORD_LENGTH, passwordProblem } from "../passwords.js";
import { startSession } from "../sessions.js";
import { errorPage } from "./errors.js";

/** The words of one kind of link; both kinds are stored alike (owner_invites), only their lifetimes differ. */
interface LinkKind {
  path: "invite" | "reset";
  title: string;
  heading: (owner: Owner) => string;
  intro: string;
  /** Why a link does not work, and what to do. */
  invalid: string;
  welcome: (owner: Owner) => string;
}

const INVITE: LinkKind = {
  path: "invite",
  title: "Choose a password",
  heading: (owner) => `Welcome, ${owner.name}`,
  intro: "Choose a password for the calsync dashboard. You sign in with your email and this password.",
  invalid: "It was already used, or it is older than 72 hours. Ask whoever runs this server for a new one (calsync owner invite).",
  welcome: (owner) => `Password set. Welcome, ${owner.name}!`,
};

const RESET: LinkKind = {
  path: "reset",
  title: "Choose a new password",
  heading: () => "Choose a new password",
  intro: "Setting it signs out every other browser signed in to your account.",
  invalid: "It was already used, or it is older than an hour. Ask for a new one on the sign-in page (Forgot password?).",
  welcome: () => "Password changed. Every other browser is signed out.",
};

/** Adds GET/POST /invite/<token> and /reset/<token>. */
export function registerInvite(app: H3, ctx: DashboardContext): void {
  for (const kind of [INVITE, RESET]) registerLink(app, ctx, kind);
}

function registerLink(app: H3, ctx: DashboardContext, kind: LinkKind): void {
  const route = `/${kind.path}/:token`;
  const invalidInvite = () => errorPage(404, `This ${kind.path === "invite" ? "invite" : "reset"} link does not work`, kind.invalid);
  app.get(route, async (event) => {
    const token = getRouterParam(event, "token") ?? "";
    const owner = await openInviteOwner(ctx, token);
    if (!owner) return invalidInvite();
    return invitePage(requestFacts(event, ctx.trustProxy), kind, token, owner);
  });

  app.post(
    route,
    publicAction(ctx, async (event, facts, form) => {
      const token = getRouterParam(event, "token") ?? "";
      const owner = await openInviteOwner(ctx, token);
      if (!owner) return invalidInvite();
      const password = form.get("password") ?? "";
      const problem = passwordProblem(password);
      if (problem) return invitePage(facts, kind, token, owner, { tone: "error", text: problem }, 422);

      const passwordHash = await hashPassword(password);
      // The link works once: of two tabs posting it, only the first gets here.
      const now = ctx.now();
      if ((await ctx.store.consumeInvite(hashSecret(token), now)) !== owner.id) return invalidInvite();
      await ctx.store.setOwnerPassword(owner.id, passwordHash);
      const started = await startSession(ctx.store, owner.id, now, facts.https);
      const response = redirectWithFlash({ facts }, "/properties", { tone: "ok", text: kind.welcome(owner) });
      for (const value of started.cookies) response.headers.append("set-cookie", value);
      return response;
    }),
  );
}

async function openInviteOwner(ctx: DashboardContext, token: string): Promise<Owner | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const invite = await ctx.store.findInvite(hashSecret(token), ctx.now());
  return invite && (await ctx.store.getOwner(invite.ownerId));
}

function invitePage(facts: RequestFacts, kind: LinkKind, token: string, owner: Owner, flash?: Flash, status = 200): Response {
  const { csrf, cookies } = anonymousCsrf(facts, newSecret);
  const body = html`<section class="card narrow auth">
  <h1>${kind.heading(owner)}</h1>
  <p class="muted">${kind.intro}</p>
  ${flash ? flashMessage(flash) : html``}
  <form method="post" action="$${url(`/${kind.path}/${token}`)}" class="stack">
    ${csrfField(csrf)}
    <label class="field"><span>Email</span>
      <input type="email" name="email" value="${owner.email ?? ""}" autocomplete="username" readonly></label>
    <label class="field"><span>New password</span>
      <input type="password" name="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required autofocus
        aria-describedby="password-hint"></label>
    <p class="hint" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters. A passphrase of a few words is easy to type and hard to guess.</p>
    <button type="submit" class="button primary">Set password</button>
  </form>
</section>`;
  return htmlResponse(status, layout({ title: kind.title, body }), { cookies });
}
