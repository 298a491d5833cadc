// Settings → Profile: the owner's name and email, the password change, and the API tokens section
// (the seed's path to a token: Settings → Profile → API tokens).
import type { DashboardContext, Visit } from "../context.js";
import { html } from "../html.js";
import { htmlResponse } from "../http.js";
import { csrfField, flashAt, flashMessage, type Flash } from "../layout.js";
import { MIN_PASSWORD_LENGTH } from "../passwords.js";
import { settingsLayout } from "../settings.js";
import { newTokenCard, tokenSection, type TokensState } from "./token-section.js";
import { ownerCalendarSection } from "./owner-calendar-section.js";

/** What the Profile page shows besides the account: a password form's error, the token section's state. */
export interface ProfileState {
  passwordError?: Flash;
  tokens?: TokensState;
  status?: number;
  headers?: Record<string, string>;
}

/** The Profile page. */
export async function profilePage(ctx: DashboardContext, visit: Visit, state: ProfileState = {}): Promise<Response> {
  const { owner } = visit;
  const body = html`<div class="page-head"><div><h1>Profile</h1><p class="muted">Your account, your password and your API tokens.</p></div></div>
${state.tokens?.created ? newTokenCard(visit, state.tokens.created) : html``}
<section class="card narrow-left" aria-labelledby="profile-details">
  <h2 id="profile-details">Profile</h2>
  <dl class="facts">
    <div><dt>Name</dt><dd>${owner.name}</dd></div>
    <div><dt>Email</dt><dd>${owner.email ?? "none"}</dd></div>
  </dl>
  <p class="hint">Whoever runs this server changes these: <code>calsync owner update</code>.</p>
</section>
<section class="card narrow-left" aria-labelledby="password-heading">
  <h2 id="password-heading">Password</h2>
  ${state.passwordError ? flashMessage(state.passwordError) : html``}
  <form method="post" action="/settings/password" class="stack">
    ${csrfField(visit.csrf)}
    <input type="email" name="email" value="${owner.email ?? ""}" autocomplete="username" hidden>
    <label class="field"><span>Current password</span><input type="password" name="currentPassword" autocomplete="current-password" required></label>
    <label class="field"><span>New password</span><input type="password" name="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required></label>
    <p class="hint">At least ${MIN_PASSWORD_LENGTH} characters. Changing it signs out every other browser.</p>
    <button type="submit" class="button primary">Change password</button>
  </form>
</section>
${await ownerCalendarSection(ctx, visit)}
<section id="api-tokens" class="settings-section" aria-labelledby="api-tokens-heading">
  <h2 id="api-tokens-heading">API tokens</h2>
  ${flashAt(visit, "api-tokens")}
  <p class="muted">For <code>POST /api/v1/calendars/sync</code>, the SDK and <code>calsync sync</code>: send one in the <code>x-api-key</code> header.</p>
  ${await tokenSection(ctx, visit, state.tokens ?? {}, "profile")}
</section>`;
  const status = state.status ?? (state.tokens?.error ? 422 : 200);
  return htmlResponse(status, settingsLayout({ title: "Profile", body, visit }), { headers: state.headers });
}
