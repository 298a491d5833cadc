// The API tokens section (CONTRACT §9): a token shown once after creation, the create form and the list
// with Revoke. Shown on Settings → Profile and on its shortcut page, Settings → API tokens; its forms
// say which page they came from, so the answer is that page again.
import { TOKEN_SCOPES, type TokenScope } from "../../../resource-types.js";
import type { TokenRecord } from "../../../store/types.js";
import type { DashboardContext, Visit } from "../context.js";
import { relativeTime } from "../format.js";
import { html, url, type SafeHtml } from "../html.js";
import { csrfField, flashMessage, type Flash } from "../layout.js";

/** Lifetimes the form offers, in days; "" never expires. */
export const EXPIRY_CHOICES: ReadonlyArray<[string, string]> = [["", "Never"], ["7", "7 days"], ["30", "30 days"], ["90", "90 days"], ["365", "1 year"]];
export const MAX_NAME_LENGTH = 100;

/** What each scope allows (CONTRACT §14), as the form says it. */
const SCOPE_HINTS: Record<TokenScope, string> = {
  sync: "start a sync",
  read: "read properties, reservations, availability",
  write: "add, change and cancel direct stays",
};

/** The settings page a token form was on. */
export type TokensPage = "profile" | "tokens";

/** The page a token form came from (its hidden `from` field); the tokens page unless it says profile. */
export function tokensPageOf(form: URLSearchParams): TokensPage {
  return form.get("from") === "profile" ? "profile" : "tokens";
}

/** Where a token form's redirect goes back to. */
export function tokensPath(page: TokensPage): string {
  return page === "profile" ? "/settings/profile#api-tokens" : "/settings/tokens";
}

/** What the section shows besides the list: a token just created, or why creating one failed. */
export interface TokensState {
  created?: { record: TokenRecord; token: string };
  error?: Flash;
}

/**
 * The section's parts: the create form (with why it failed) and the list, headings one level under its page's.
 * A token just created is not among them: its page shows `newTokenCard` at its top, where the eye lands.
 */
export async function tokenSection(ctx: DashboardContext, visit: Visit, state: TokensState, from: TokensPage): Promise<SafeHtml> {
  const tokens = await ctx.store.listTokens(visit.owner.id);
  const now = ctx.now();
  // On Profile the section sits under its own "API tokens" heading.
  const heading = (id: string, text: string, cls = "") =>
    from === "profile" ? html`<h3 id="${id}" class="${cls}">${text}</h3>` : html`<h2 id="${id}" class="${cls}">${text}</h2>`;
  return html`<section class="card" aria-labelledby="create-token">
  ${heading("create-token", "Create a token")}
  ${state.error ? html`<div id="${TOKEN_RESULT}">${flashMessage(state.error)}</div>` : html``}
  <form method="post" action="$${url(`/settings/tokens#${TOKEN_RESULT}`)}" class="inline-form">
    ${csrfField(visit.csrf)}
    <input type="hidden" name="from" value="${from}">
    <label class="field grow"><span>Token name</span><input type="text" name="name" maxlength="${MAX_NAME_LENGTH}" required placeholder="backend"></label>
    <div class="field"><label for="token-expires">Expires</label><select id="token-expires" name="expiresInDays">${EXPIRY_CHOICES.map(([value, label]) => html`<option value="${value}">${label}</option>`)}</select></div>
    <input type="hidden" name="scopes-offered" value="1">
    <fieldset class="checks"><legend>Scopes</legend>${TOKEN_SCOPES.map(
      (scope) => html`<label class="check"><input type="checkbox" name="scope" value="${scope}" checked> <code>${scope}</code> <span class="hint">${SCOPE_HINTS[scope]}</span></label>`,
    )}</fieldset>
    <button type="submit" class="button primary">Create token</button>
  </form>
</section>
<section class="card flush" aria-labelledby="your-tokens">
  ${heading("your-tokens", "Your tokens", "card-title")}
  ${tokens.length === 0 ? html`<p class="empty-row muted">No tokens yet.</p>` : tokenTable(visit, tokens, now, from)}
</section>`;
}

/**
 * The id the create form's answer jumps to (its action's fragment): the new token, or why it was not made. On
 * a phone the form sits a screen or more below the top; the answer must not be out of sight.
 */
export const TOKEN_RESULT = "token-result";

/** A token just created, shown this once: the first thing on its page. */
export function newTokenCard(visit: Visit, created: NonNullable<TokensState["created"]>): SafeHtml {
  const { record, token } = created;
  return html`<section class="card success-card" id="${TOKEN_RESULT}" role="status" aria-labelledby="new-token-heading">
  <h2 id="new-token-heading">Token "${record.name}" created</h2>
  <p><strong>Copy it now: it is shown only this once.</strong> calsync keeps only a hash of it.</p>
  <div class="copy-row"><code class="secret" id="new-token" data-testid="new-token">${token}</code>
    <button type="button" class="button small" data-copy="new-token" hidden>Copy</button></div>
  ${tryIt(visit.facts.origin, record)}
</section>`;
}

// A first call the token is allowed to make: reading is harmless, so a token that may read lists its properties;
// a sync-only one starts a sync; a write-only one is told what it may do (a "try" that writes a stay would not be one).
function tryIt(origin: string, record: TokenRecord): SafeHtml {
  const key = `-H "x-api-key: ${record.prefix}…"`;
  if (record.scopes.includes("read")) return html`<p class="hint">Try it: <code>curl ${key} ${origin}/api/v1/properties</code></p>`;
  if (record.scopes.includes("sync")) return html`<p class="hint">Try it: <code>curl -X POST ${key} ${origin}/api/v1/calendars/sync</code></p>`;
  return html`<p class="hint">It can only write: add, change and cancel direct stays with <code>POST ${origin}/api/v1/properties/{id}/reservations</code>, <code>PATCH</code> and <code>DELETE ${origin}/api/v1/reservations/{id}</code>.</p>`;
}

// On a phone the rows stack: each cell on a line of its own, named by its column (data-label).
function tokenTable(visit: Visit, tokens: TokenRecord[], now: Date, from: TokensPage): SafeHtml {
  const rows = tokens.map((t) => {
    const expired = t.expiresAt !== null && Date.parse(t.expiresAt) <= now.getTime();
    const state = t.revokedAt
      ? html`<span class="pill failed">revoked</span> ${relativeTime(t.revokedAt, now)}`
      : expired
        ? html`<span class="pill muted-pill">expired</span>`
        : html`<span class="pill ok">active</span>`;
    const revoke = t.revokedAt
      ? html``
      : html`<form method="post" action="$${url(`/settings/tokens/${t.id}/revoke`)}">${csrfField(visit.csrf)}<input type="hidden" name="from" value="${from}"><button type="submit" class="button danger small">Revoke</button></form>`;
    return html`<tr data-token-id="${t.id}">
    <td data-label="Name">${t.name}</td><td data-label="Prefix"><code>${t.prefix}…</code></td><td data-label="Scopes">${t.scopes.join(", ")}</td><td data-label="Created">${relativeTime(t.createdAt, now)}</td>
    <td data-label="Last used">${relativeTime(t.lastUsedAt, now)}</td><td data-label="Expires">${relativeTime(t.expiresAt, now)}</td><td data-label="Status">${state}</td>
    <td class="row-actions">${revoke}</td></tr>`;
  });
  return html`<div class="table-wrap"><table class="data stack-on-phone">
  <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${rows}</tbody></table></div>`;
}
