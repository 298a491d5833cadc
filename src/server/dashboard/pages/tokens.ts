// Settings → API tokens: create one (shown once), list them, revoke one. The same tokens as
// `calsync token create|list|revoke`: only a hash and a display prefix are stored.
import { getRouterParam, type H3 } from "h3";
import type { TokenRecord } from "../../../store/types.js";
import { generateToken } from "../../tokens.js";
import { ownerAction, ownerPage, redirectWithFlash, type DashboardContext, type Visit } from "../context.js";
import { TOKEN_SCOPES, type TokenScope } from "../../../resource-types.js";
import { relativeTime } from "../format.js";
import { html, url, type SafeHtml } from "../html.js";
import { htmlResponse } from "../http.js";
import { csrfField, flashMessage, layout, type Flash } from "../layout.js";
import { ownedToken } from "../owned.js";
import { notFoundPage } from "./errors.js";

const DAY_MS = 86_400_000;
/** What each scope allows (CONTRACT §14), as the form says it. */
const SCOPE_HINTS: Record<TokenScope, string> = {
  sync: "start a sync",
  read: "read properties, reservations, availability",
  write: "add, change and cancel direct stays",
};

/** Lifetimes the form offers, in days; "" never expires. */
const EXPIRY_CHOICES: ReadonlyArray<[string, string]> = [["", "Never"], ["7", "7 days"], ["30", "30 days"], ["90", "90 days"], ["365", "1 year"]];
const MAX_NAME_LENGTH = 100;

/** Adds GET/POST /settings/tokens and POST /settings/tokens/<id>/revoke. */
export function registerTokens(app: H3, ctx: DashboardContext): void {
  app.get("/settings/tokens", ownerPage(ctx, (_event, visit) => tokensPage(ctx, visit)));

  // The new token is shown in the answer to this POST, not after a redirect: carrying it to a later
  // page would mean storing the plain token somewhere, and it must exist only in this one answer.
  app.post(
    "/settings/tokens",
    ownerAction(ctx, async (_event, visit, form) => {
      const name = (form.get("name") ?? "").trim();
      const days = form.get("expiresInDays") ?? "";
      if (name === "" || name.length > MAX_NAME_LENGTH) {
        return tokensPage(ctx, visit, { error: { tone: "error", text: `Give the token a name of 1 to ${MAX_NAME_LENGTH} characters, e.g. "backend".` } });
      }
      if (!EXPIRY_CHOICES.some(([value]) => value === days)) {
        return tokensPage(ctx, visit, { error: { tone: "error", text: "Choose an expiry from the list." } });
      }
      // The form marks that it offered scopes: a post without that marker (an older page) gets all three.
      const checked = form.getAll("scope");
      const scopes = form.has("scopes-offered") ? TOKEN_SCOPES.filter((scope) => checked.includes(scope)) : [...TOKEN_SCOPES];
      if (scopes.length === 0 || checked.some((scope) => !(TOKEN_SCOPES as readonly string[]).includes(scope))) {
        return tokensPage(ctx, visit, { error: { tone: "error", text: "Check at least one scope: sync, read or write." } });
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
      return tokensPage(ctx, visit, { created: { record, token: generated.token } });
    }),
  );

  app.post(
    "/settings/tokens/:id/revoke",
    ownerAction(ctx, async (event, visit) => {
      const token = await ownedToken(ctx.store, visit.owner.id, getRouterParam(event, "id"));
      if (!token) return notFoundPage(visit);
      await ctx.store.revokeToken(token.id, ctx.now());
      const text = `Revoked "${token.name}" (${token.prefix}…): calls with it now get 401 revoked_token.`;
      return redirectWithFlash(visit, "/settings/tokens", { tone: "ok", text });
    }),
  );
}

interface TokensState {
  created?: { record: TokenRecord; token: string };
  error?: Flash;
}

async function tokensPage(ctx: DashboardContext, visit: Visit, state: TokensState = {}): Promise<Response> {
  const tokens = await ctx.store.listTokens(visit.owner.id);
  const now = ctx.now();
  const body = html`<div class="page-head"><div><h1>API tokens</h1>
  <p class="muted">For <code>POST /api/v1/calendars/sync</code>, the SDK and <code>calsync sync</code>: send one in the <code>x-api-key</code> header.</p></div></div>
${state.created ? newTokenView(visit, state.created.record, state.created.token) : html``}
<section class="card">
  <h2>Create a token</h2>
  ${state.error ? flashMessage(state.error) : html``}
  <form method="post" action="/settings/tokens" class="inline-form">
    ${csrfField(visit.csrf)}
    <label class="field grow"><span>Token name</span><input type="text" name="name" maxlength="${MAX_NAME_LENGTH}" required placeholder="backend"></label>
    <div class="field"><label for="token-expires">Expires</label><select id="token-expires" name="expiresInDays">${EXPIRY_CHOICES.map(([value, label]) => html`<option value="${value}">${label}</option>`)}</select></div>
    <input type="hidden" name="scopes-offered" value="1">
    <fieldset class="checks"><legend>Scopes</legend>${TOKEN_SCOPES.map(
      (scope) => html`<label class="check"><input type="checkbox" name="scope" value="${scope}" checked> <code>${scope}</code> <span class="hint">${SCOPE_HINTS[scope]}</span></label>`,
    )}</fieldset>
    <button type="submit" class="button primary">Create token</button>
  </form>
</section>
<section class="card flush">
  <h2 class="card-title">Your tokens</h2>
  ${tokens.length === 0 ? html`<p class="empty-row muted">No tokens yet.</p>` : tokenTable(visit, tokens, now)}
</section>`;
  return htmlResponse(state.error ? 422 : 200, layout({ title: "API tokens", body, visit }));
}

function newTokenView(visit: Visit, record: TokenRecord, token: string): SafeHtml {
  return html`<section class="card success-card" role="status">
  <h2>Token "${record.name}" created</h2>
  <p><strong>Copy it now: it is shown only this once.</strong> calsync keeps only a hash of it.</p>
  <div class="copy-row"><code class="secret" id="new-token" data-testid="new-token">${token}</code>
    <button type="button" class="button small" data-copy="new-token" hidden>Copy</button></div>
  <p class="hint">Try it: <code>curl -X POST -H "x-api-key: ${record.prefix}…" ${visit.facts.origin}/api/v1/calendars/sync</code></p>
</section>`;
}

function tokenTable(visit: Visit, tokens: TokenRecord[], now: Date): SafeHtml {
  const rows = tokens.map((t) => {
    const expired = t.expiresAt !== null && Date.parse(t.expiresAt) <= now.getTime();
    const state = t.revokedAt
      ? html`<span class="pill failed">revoked</span> ${relativeTime(t.revokedAt, now)}`
      : expired
        ? html`<span class="pill muted-pill">expired</span>`
        : html`<span class="pill ok">active</span>`;
    const revoke = t.revokedAt
      ? html``
      : html`<form method="post" action="$${url(`/settings/tokens/${t.id}/revoke`)}">${csrfField(visit.csrf)}<button type="submit" class="button danger small">Revoke</button></form>`;
    return html`<tr data-token-id="${t.id}">
    <td>${t.name}</td><td><code>${t.prefix}…</code></td><td>${t.scopes.join(", ")}</td><td>${relativeTime(t.createdAt, now)}</td>
    <td>${relativeTime(t.lastUsedAt, now)}</td><td>${relativeTime(t.expiresAt, now)}</td><td>${state}</td>
    <td class="row-actions">${revoke}</td></tr>`;
  });
  return html`<div class="table-wrap"><table class="data">
  <thead><tr><th>Name</th><th>Prefix</th><th>Scopes</th><th>Created</th><th>Last used</th><th>Expires</th><th>Status</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${rows}</tbody></table></div>`;
}
