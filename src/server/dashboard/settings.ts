// Settings (CONTRACT §9): the navigation's "Settings" opens Profile; every settings page shares one
// sub-navigation. A new settings page (e.g. Notifications, §16) is one more entry in SETTINGS_SECTIONS.
import { html, url, type SafeHtml } from "./html.js";
import { layout, type LayoutVisit } from "./layout.js";

/** The settings pages, in the order the sub-navigation lists them; the first is where "Settings" leads. */
export const SETTINGS_SECTIONS: ReadonlyArray<{ href: string; label: string }> = [
  { href: "/settings/profile", label: "Profile" },
  { href: "/settings/tokens", label: "API tokens" },
  // Issue 29 (§16) adds { href: "/settings/notifications", label: "Notifications" } here.
];

/** A settings page: the layout, the settings sub-navigation, then `body`. */
export function settingsLayout(options: { title: string; body: SafeHtml; visit: LayoutVisit }): SafeHtml {
  const links = SETTINGS_SECTIONS.map(({ href, label }) => {
    const current = options.visit.path === href;
    return html`<a href="$${url(href)}"${current ? html` aria-current="page"` : html``}>${label}</a>`;
  });
  const body = html`<div class="settings">
  <nav class="subnav" aria-label="Settings">${links}</nav>
  <div class="settings-body">${options.body}</div>
</div>`;
  return layout({ title: options.title, body, visit: options.visit });
}
