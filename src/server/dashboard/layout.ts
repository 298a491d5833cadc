// The page around every dashboard view: head (served CSS and JS only), the navigation, messages.
import { html, url, type SafeHtml } from "./html.js";

/** A one-line message shown once on the next page (post/redirect/get). */
export interface Flash {
  tone: "ok" | "warn" | "error";
  text: string;
  /**
   * The id of the section the redirect jumps to (`#direct-stays`): the message is shown there, where the
   * owner's eyes are, instead of at the top of the page, out of sight on a phone.
   */
  at?: string;
}

/** The signed-in part of the layout: who, where, and the token the sign-out form needs. */
export interface LayoutVisit {
  ownerName: string;
  /** Path of the page, to mark its navigation link as current. */
  path: string;
  csrf: string;
  flash?: Flash;
}

/**
 * The main navigation. A link is current on its own path and below, or below `section`; of several,
 * the one whose match is longest ("API tokens" rather than "Settings" on /settings/tokens).
 */
const NAVIGATION: ReadonlyArray<{ href: string; label: string; section?: string }> = [
  { href: "/properties", label: "Properties" },
  { href: "/cleaning", label: "Cleaning" },
  // A shortcut to the API tokens section of Settings, kept where owners learned to look.
  { href: "/settings/tokens", label: "API tokens" },
  { href: "/webhooks", label: "Webhooks" },
  { href: "/settings/profile", label: "Settings", section: "/settings" },
  { href: "/settings/notifications", label: "Notifications" },
];

/** A whole HTML document. Without `visit` it is a signed-out page (sign-in, invite, errors). */
export function layout(options: { title: string; body: SafeHtml; visit?: LayoutVisit; wide?: boolean }): SafeHtml {
  const { visit } = options;
  return html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · calsync</title>
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/dashboard.css">
<script src="/assets/dashboard.js" defer></script>
</head>
<body>
<header class="topbar">
  <div class="topbar-inner${options.wide ? " wide" : ""}">
    <a class="brand" href="$${url(visit ? "/properties" : "/sign-in")}"><span class="brand-mark" aria-hidden="true"></span>calsync</a>
    ${visit ? navigation(visit) : html``}
  </div>
</header>
<main class="container${options.wide ? " wide" : ""}">
${visit?.flash ? flashMessage(visit.flash) : html``}
${options.body}
</main>
</body>
</html>`;
}

function navigation(visit: LayoutVisit): SafeHtml {
  const matched = (prefix: string) => visit.path === prefix || visit.path.startsWith(`${prefix}/`);
  const matches = NAVIGATION.map((link) => Math.max(...[link.href, link.section ?? link.href].map((p) => (matched(p) ? p.length : -1))));
  const best = Math.max(...matches);
  const links = NAVIGATION.map(({ href, label }, i) => {
    const current = best >= 0 && matches[i] === best;
    return html`<a href="$${url(href)}"${current ? html` aria-current="page"` : html``}>${label}</a>`;
  });
  return html`<nav class="nav" aria-label="Main">${links}</nav>
    <div class="account">
      <a class="account-name" href="/settings/profile" title="Profile and password">${visit.ownerName}</a>
      <form method="post" action="/sign-out">${csrfField(visit.csrf)}<button type="submit" class="button ghost small">Sign out</button></form>
    </div>`;
}

/** The hidden CSRF field every form carries. */
export function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

/**
 * The flash meant for the section `id`, taken from `visit` so the layout does not show it again at the top.
 * A page builds its body before the layout, so a section that shows its flash always comes first.
 */
export function flashAt(visit: { flash?: Flash }, id: string): SafeHtml {
  const flash = visit.flash;
  if (flash?.at !== id) return html``;
  delete visit.flash;
  return flashMessage(flash);
}

/** A message box; errors are announced at once to screen readers. */
export function flashMessage(flash: Flash): SafeHtml {
  const role = flash.tone === "error" ? "alert" : "status";
  return html`<div class="flash ${flash.tone}" role="${role}">${flash.text}</div>`;
}
