// The property page's "On your website" card (CONTRACT §15): the two lines an owner pastes into their own
// site to show the property's free nights with <calsync-availability>. The feed token is its capability.
import type { Property } from "../../../store/types.js";
import { EMBED_SCRIPT_PATH, versionedEmbedPath } from "../../embed-route.js";
import type { Visit } from "../context.js";
import { html, type SafeHtml } from "../html.js";

/**
 * The snippet for a site, with calsync at `origin`. It loads the current version of the element (a
 * five-minute cache), so it keeps working when calsync is upgraded.
 */
export function embedSnippet(origin: string, feedToken: string): string {
  return [
    `<script type="module" src="${origin}${EMBED_SCRIPT_PATH}"></script>`,
    `<calsync-availability src="${origin}/availability/${feedToken}.json" months="2"></calsync-availability>`,
  ].join("\n");
}

/** The card: the snippet to copy once the property has a feed token, else where to get one. */
export function embedSection(visit: Visit, property: Property): SafeHtml {
  const intro = html`<p class="muted">A calendar of this property's free and booked nights for your own website, kept true by every channel. It shows dates only: no names, no channels.</p>`;
  if (!property.feedToken) {
    return html`<section class="card" id="website"><h2>On your website</h2>${intro}
  <p>Create the feed URL above first: the website calendar uses the same secret address.</p></section>`;
  }
  return html`<section class="card" id="website"><h2>On your website</h2>${intro}
  <p class="muted">Paste this where the calendar should appear. It speaks the language of your page (its <code>lang</code>) and can be styled with CSS custom properties and <code>::part()</code>. If your site sends a Content-Security-Policy, allow this server in <code>script-src</code> and <code>connect-src</code>.</p>
  <div class="copy-row"><pre class="snippet"><code id="embed-snippet">${embedSnippet(visit.facts.origin, property.feedToken)}</code></pre>
    <button type="button" class="button small" data-copy="embed-snippet" hidden>Copy</button></div>
  <p class="hint">Rotating the feed URL above changes this address too: paste the snippet again afterwards.
    For a year-long browser cache, load <code>${visit.facts.origin}${versionedEmbedPath()}</code> instead: it is this version of the calendar only, so change it after upgrading calsync.</p>
</section>`;
}
