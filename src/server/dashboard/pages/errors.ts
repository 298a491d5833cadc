// Error pages: a short title, what to do next, and never a stack trace.
import { html } from "../html.js";
import { htmlResponse } from "../http.js";
import { layout, type LayoutVisit } from "../layout.js";

/** An HTML error answer; with `visit` the navigation is shown. */
export function errorPage(
  status: number,
  title: string,
  message: string,
  options: { visit?: LayoutVisit; headers?: Record<string, string> } = {},
): Response {
  const back = options.visit ? html`<a class="button" href="/properties">Back to the overview</a>` : html`<a class="button" href="/sign-in">Go to sign-in</a>`;
  const body = html`<section class="card narrow center">
  <p class="status-code">${status}</p>
  <h1>${title}</h1>
  <p class="muted">${message}</p>
  <p>${back}</p>
</section>`;
  return htmlResponse(status, layout({ title, body, visit: options.visit }), { headers: options.headers });
}

/** The 404 of the dashboard: also what an owner sees for another owner's ids (they must not learn these exist). */
export function notFoundPage(visit?: LayoutVisit): Response {
  return errorPage(404, "Not found", "There is nothing here, or it is not yours.", { visit });
}
