// Webhooks (CONTRACT §11) arrive in a later version; the page says so, so the navigation stays whole.
import type { H3 } from "h3";
import { ownerPage, type DashboardContext } from "../context.js";
import { html } from "../html.js";
import { htmlResponse } from "../http.js";
import { layout } from "../layout.js";

/** Adds GET /webhooks. */
export function registerWebhooks(app: H3, ctx: DashboardContext): void {
  app.get(
    "/webhooks",
    ownerPage(ctx, async (_event, visit) => {
      const body = html`<div class="page-head"><div><h1>Webhooks</h1></div></div>
<section class="card empty"><h2>Coming in a later version</h2>
  <p class="muted">Webhooks will tell your own systems when a sync finishes, a calendar keeps failing or a double booking appears.
  Until then, call <code>POST /api/v1/calendars/sync</code> with an <a href="/settings/tokens">API token</a> and read its answer.</p></section>`;
      return htmlResponse(200, layout({ title: "Webhooks", body, visit }));
    }),
  );
}
