// Settings → API tokens: create one (shown once), list them, revoke one. The same tokens as
// `calsync token create|list|revoke`: only a hash and a display prefix are stored. The section also
// sits on Settings → Profile; a form answers on the page it came from.
import { getRouterParam, type H3 } from "h3";
import { generateToken } from "../../tokens.js";
import { ownerAction, ownerPage, redirectWithFlash, type DashboardContext, type Visit } from "../context.js";
import { TOKEN_SCOPES } from "../../../resource-types.js";
import { html } from "../html.js";
import { htmlResponse } from "../http.js";
import { ownedToken } from "../owned.js";
import { settingsLayout } from "../settings.js";
import { notFoundPage } from "./errors.js";
import { profilePage } from "./profile-view.js";
import { EXPIRY_CHOICES, MAX_NAME_LENGTH, newTokenCard, tokenSection, tokensPageOf, tokensPath, type TokensPage, type TokensState } from "./token-section.js";

const DAY_MS = 86_400_000;

/** Adds GET/POST /settings/tokens and POST /settings/tokens/<id>/revoke. */
export function registerTokens(app: H3, ctx: DashboardContext): void {
  app.get("/settings/tokens", ownerPage(ctx, (_event, visit) => tokensPage(ctx, visit)));

  // The new token is shown in the answer to this POST, not after a redirect: carrying it to a later
  // page would mean storing the plain token somewhere, and it must exist only in this one answer.
  app.post(
    "/settings/tokens",
    ownerAction(ctx, async (_event, visit, form) => {
      const from = tokensPageOf(form);
      const name = (form.get("name") ?? "").trim();
      const days = form.get("expiresInDays") ?? "";
      if (name === "" || name.length > MAX_NAME_LENGTH) {
        return answer(ctx, visit, from, { error: { tone: "error", text: `Give the token a name of 1 to ${MAX_NAME_LENGTH} characters, e.g. "backend".` } });
      }
      if (!EXPIRY_CHOICES.some(([value]) => value === days)) {
        return answer(ctx, visit, from, { error: { tone: "error", text: "Choose an expiry from the list." } });
      }
      // The form marks that it offered scopes: a post without that marker (an older page) gets all three.
      const checked = form.getAll("scope");
      const scopes = form.has("scopes-offered") ? TOKEN_SCOPES.filter((scope) => checked.includes(scope)) : [...TOKEN_SCOPES];
      if (scopes.length === 0 || checked.some((scope) => !(TOKEN_SCOPES as readonly string[]).includes(scope))) {
        return answer(ctx, visit, from, { error: { tone: "error", text: "Check at least one scope: sync, read or write." } });
      }
      const generated = generateToken();
      const record = await ctx.store.createToken({
        ownerId: visit.owner.id,
        name,
        prefix: generated.prefix,
        hash: generated.hash,
        expiresAt: days === "" ? null : new Date(ctx.now().getTime() + Number(days) * DAY_MS),
        scopes,
      });
      return answer(ctx, visit, from, { created: { record, token: generated.token } });
    }),
  );

  app.post(
    "/settings/tokens/:id/revoke",
    ownerAction(ctx, async (event, visit, form) => {
      const token = await ownedToken(ctx.store, visit.owner.id, getRouterParam(event, "id"));
      if (!token) return notFoundPage(visit);
      await ctx.store.revokeToken(token.id, ctx.now());
      const text = `Revoked "${token.name}" (${token.prefix}…): calls with it now get 401 revoked_token.`;
      const from = tokensPageOf(form);
      // On Profile the redirect jumps to the API tokens section: the message is shown there.
      return redirectWithFlash(visit, tokensPath(from), { tone: "ok", text, ...(from === "profile" ? { at: "api-tokens" } : {}) });
    }),
  );
}

function answer(ctx: DashboardContext, visit: Visit, from: TokensPage, state: TokensState): Promise<Response> {
  // Answered at /settings/tokens, but it is the Profile page: its navigation says so.
  return from === "profile" ? profilePage(ctx, { ...visit, path: "/settings/profile" }, { tokens: state }) : tokensPage(ctx, visit, state);
}

async function tokensPage(ctx: DashboardContext, visit: Visit, state: TokensState = {}): Promise<Response> {
  const body = html`<div class="page-head"><div><h1>API tokens</h1>
  <p class="muted">For <code>POST /api/v1/calendars/sync</code>, the SDK and <code>calsync sync</code>: send one in the <code>x-api-key</code> header.</p></div></div>
${state.created ? newTokenCard(visit, state.created) : html``}
${await tokenSection(ctx, visit, state, "tokens")}`;
  return htmlResponse(state.error ? 422 : 200, settingsLayout({ title: "API tokens", body, visit }));
}
