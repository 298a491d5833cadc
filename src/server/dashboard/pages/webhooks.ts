// Webhooks (CONTRACT §11): the owner's endpoints and their recent deliveries; add one (its signing secret is
// shown once, in the answer to the form) and remove one. The same endpoints as `calsync webhook add|list|remove`.
import { getRouterParam, type H3 } from "h3";
import { maskUrl } from "../../../engine/mask-url.js";
import type { WebhookDelivery, WebhookEndpoint } from "../../../store/types.js";
import { WEBHOOK_EVENT_TYPES } from "../../../types.js";
import { checkWebhookUrl, generateWebhookSecret, parseWebhookEvents } from "../../webhooks/endpoint-rules.js";
import { ownerAction, ownerPage, redirectWithFlash, type DashboardContext, type Visit } from "../context.js";
import { relativeTime } from "../format.js";
import { html, url, type SafeHtml } from "../html.js";
import { htmlResponse } from "../http.js";
import { csrfField, flashMessage, layout, type Flash } from "../layout.js";
import { ownedWebhook } from "../owned.js";
import { notFoundPage } from "./errors.js";

const RECENT_DELIVERIES = 50;

/** Adds GET/POST /webhooks and POST /webhooks/<id>/remove. */
export function registerWebhooks(app: H3, ctx: DashboardContext): void {
  app.get("/webhooks", ownerPage(ctx, (_event, visit) => webhooksPage(ctx, visit)));

  // The secret is shown in the answer to this POST, never after a redirect: only this answer carries it.
  app.post(
    "/webhooks",
    ownerAction(ctx, async (_event, visit, form) => {
      const typed = (form.get("url") ?? "").trim();
      const events = parseWebhookEvents(form.getAll("events"));
      const checked = checkWebhookUrl(typed, ctx.allowPrivateNetworks);
      const refuse = (text: string) => webhooksPage(ctx, visit, { error: { tone: "error", text }, url: typed, checked: form.getAll("events") });
      if (!checked.ok) return refuse(`${checked.message[0]!.toUpperCase()}${checked.message.slice(1)}.`);
      if (!events.ok) return refuse("Choose events from the list.");
      const endpoint = await ctx.store.createWebhookEndpoint({ ownerId: visit.owner.id, url: checked.url, events: events.events, secret: generateWebhookSecret() });
      return webhooksPage(ctx, visit, { created: endpoint });
    }),
  );

  app.post(
    "/webhooks/:id/remove",
    ownerAction(ctx, async (event, visit) => {
      const endpoint = await ownedWebhook(ctx.store, visit.owner.id, getRouterParam(event, "id"));
      if (!endpoint) return notFoundPage(visit);
      await ctx.store.removeWebhookEndpoint(endpoint.id);
      return redirectWithFlash(visit, "/webhooks", { tone: "ok", text: `Removed the webhook to ${maskUrl(endpoint.url)}; nothing more is sent there.` });
    }),
  );
}

interface WebhooksState {
  created?: WebhookEndpoint;
  error?: Flash;
  /** What was typed and ticked in a refused form. */
  url?: string;
  checked?: string[];
}

async function webhooksPage(ctx: DashboardContext, visit: Visit, state: WebhooksState = {}): Promise<Response> {
  const endpoints = await ctx.store.listWebhookEndpoints(visit.owner.id);
  const deliveries = await ctx.store.listWebhookDeliveries({ ownerId: visit.owner.id, limit: RECENT_DELIVERIES });
  const now = ctx.now();
  const choices = WEBHOOK_EVENT_TYPES.map(
    (type) =>
      html`<label class="check"><input type="checkbox" name="events" value="${type}"${state.checked?.includes(type) ? html` checked` : html``}> <code>${type}</code></label>`,
  );
  const body = html`<div class="page-head"><div><h1>Webhooks</h1>
  <p class="muted">calsync POSTs signed JSON to your endpoints when a sync finishes, a reservation is created, updated or cancelled,
  a calendar keeps failing or recovers, or a double booking appears. Verify each delivery with <code>verifyWebhook()</code> from the SDK.</p></div></div>
${state.created ? newSecretView(state.created) : html``}
<section class="card">
  <h2>Add a webhook</h2>
  ${state.error ? flashMessage(state.error) : html``}
  <form method="post" action="/webhooks" class="stack">
    ${csrfField(visit.csrf)}
    <label class="field grow"><span>Endpoint URL</span><input type="url" name="url" required maxlength="2048" placeholder="https://example.com/calsync" value="${state.url ?? ""}"></label>
    <fieldset class="checks"><legend>Events <span class="hint">(none checked: every event, later ones too)</span></legend>${choices}</fieldset>
    <div><button type="submit" class="button primary">Add webhook</button></div>
  </form>
</section>
<section class="card flush">
  <h2 class="card-title">Your webhooks</h2>
  ${endpoints.length === 0 ? html`<p class="empty-row muted">No webhooks yet.</p>` : endpointTable(visit, endpoints, now)}
</section>
<section class="card flush">
  <h2 class="card-title">Recent deliveries</h2>
  ${deliveries.length === 0 ? html`<p class="empty-row muted">Nothing sent yet: events appear after a sync.</p>` : deliveryTable(deliveries, endpoints, now)}
</section>`;
  return htmlResponse(state.error ? 422 : 200, layout({ title: "Webhooks", body, visit }));
}

function newSecretView(endpoint: WebhookEndpoint): SafeHtml {
  return html`<section class="card success-card" role="status">
  <h2>Webhook to ${maskUrl(endpoint.url)} added</h2>
  <p><strong>Copy its signing secret now: it is shown only this once.</strong> Your receiver needs it to verify deliveries.</p>
  <div class="copy-row"><code class="secret" id="new-webhook-secret" data-testid="new-webhook-secret">${endpoint.secret}</code>
    <button type="button" class="button small" data-copy="new-webhook-secret" hidden>Copy</button></div>
</section>`;
}

function endpointTable(visit: Visit, endpoints: WebhookEndpoint[], now: Date): SafeHtml {
  const rows = endpoints.map(
    (e) => html`<tr data-webhook-id="${e.id}">
    <td data-label="URL"><code>${maskUrl(e.url)}</code></td><td data-label="Events">${e.events.includes("*") ? "every event" : e.events.join(", ")}</td>
    <td data-label="Added">${relativeTime(e.createdAt, now)}</td>
    <td class="row-actions"><form method="post" action="$${url(`/webhooks/${e.id}/remove`)}">${csrfField(visit.csrf)}<button type="submit" class="button danger small">Remove</button></form></td></tr>`,
  );
  return html`<div class="table-wrap"><table class="data stack-on-phone">
  <thead><tr><th>URL</th><th>Events</th><th>Added</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${rows}</tbody></table></div>`;
}

function deliveryTable(deliveries: WebhookDelivery[], endpoints: WebhookEndpoint[], now: Date): SafeHtml {
  const urls = new Map(endpoints.map((e) => [e.id, maskUrl(e.url)]));
  const rows = deliveries.map((d) => {
    const pill = d.status === "delivered" ? "ok" : d.status === "failed" ? "failed" : "muted-pill";
    const answer = d.lastStatus !== null ? `HTTP ${d.lastStatus}` : (d.lastError ?? "");
    return html`<tr data-event-id="${d.eventId}">
    <td data-label="Event"><code class="event">${d.type}</code></td><td data-label="To"><code>${urls.get(d.endpointId) ?? d.endpointId}</code></td>
    <td data-label="Status"><span class="pill ${pill}">${d.status}</span></td><td data-label="Attempts">${d.attempts}</td>
    <td data-label="Last attempt">${relativeTime(d.lastAttemptAt, now, "not yet")}</td><td data-label="Last answer" title="${d.lastError ?? ""}">${answer}</td>
    <td data-label="Next attempt">${d.nextAttemptAt ? relativeTime(d.nextAttemptAt, now) : html`<span class="muted">-</span>`}</td></tr>`;
  });
  return html`<div class="table-wrap"><table class="data stack-on-phone">
  <thead><tr><th>Event</th><th>To</th><th>Status</th><th>Attempts</th><th>Last attempt</th><th>Last answer</th><th>Next attempt</th></tr></thead>
  <tbody>${rows}</tbody></table></div>`;
}
