// A cleaner's one-click unsubscribe (CONTRACT §18, RFC 8058): POST /unsubscribe/<token> removes the address the
// token names from the property it names, once. GET only shows a page whose button POSTs: mail scanners open
// links, and opening one must not unsubscribe anybody. No session and no CSRF token: the secret in the path is
// the capability, and a mail client's one-click POST comes from no page of ours.
import type { H3 } from "h3";
import type { Store } from "../store/types.js";
import { html } from "./dashboard/html.js";
import { htmlResponse } from "./dashboard/http.js";
import { layout } from "./dashboard/layout.js";

/** Route of the unsubscribe links. */
export const UNSUBSCRIBE_ROUTE = "/unsubscribe/:token";

/** Adds GET and POST /unsubscribe/<token> to `app`. */
export function registerUnsubscribeRoute(app: H3, options: { store: Store; now?: () => Date }): void {
  app.get(UNSUBSCRIBE_ROUTE, (event) => {
    const token = tokenOf(event.url.pathname);
    if (!token) return page(404, "Unknown link", html`<p>This unsubscribe link is not one calsync made.</p>`);
    return page(200, "Stop cleaning mails", html`<p>Stop the mails about this property's cleaning schedule to your address?</p>
<form method="post" action="/unsubscribe/${token}"><button type="submit" class="button primary">Unsubscribe</button></form>`);
  });
  app.post(UNSUBSCRIBE_ROUTE, async (event) => {
    const token = tokenOf(event.url.pathname);
    const outcome = token ? await options.store.unsubscribeCleaner(token, options.now?.()) : "unknown";
    if (outcome === "unknown") return page(404, "Unknown link", html`<p>This unsubscribe link is not one calsync made.</p>`);
    if (outcome === "already") return page(200, "Already unsubscribed", html`<p>Already done: this address gets no more cleaning mails from this link's property.</p>`);
    return page(200, "Unsubscribed", html`<p>Done: this address gets no more mails about this property's cleaning schedule.</p>`);
  });
}

function tokenOf(pathname: string): string | undefined {
  const token = pathname.slice(pathname.lastIndexOf("/") + 1);
  return /^[A-Za-z0-9]{43}$/.test(token) ? token : undefined;
}

function page(status: number, title: string, body: ReturnType<typeof html>): Response {
  return htmlResponse(status, layout({ title, body: html`<section class="card narrow-left"><h1>${title}</h1>${body}</section>` }));
}
