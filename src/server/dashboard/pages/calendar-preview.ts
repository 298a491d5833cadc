// The add-calendar form's first answer: what `calsync calendar test` shows for the link, before anything
// is saved, with a "Save calendar" form carrying the link on and a way back.
import type { FeedPreview, FeedPreviewResult } from "../../../engine/feed-preview.js";
import { maskUrl } from "../../../engine/mask-url.js";
import type { Property } from "../../../store/types.js";
import type { SyncError, SyncWarning } from "../../../types.js";
import type { Visit } from "../context.js";
import { longDay, plural } from "../format.js";
import { html, url, type SafeHtml } from "../html.js";
import { csrfField, flashMessage } from "../layout.js";

/** A link that passed the checks, read once: the preview, and the checks' warnings (the same feed on another property). */
export interface CalendarPreview {
  result: FeedPreviewResult;
  notes: string[];
}

// A feed with thousands of broken events would make a page of them; the sync report lists them all.
const WARNINGS_SHOWN = 10;

/** The preview card shown in place of the add form; `typed` is what the owner sent, carried to "Save calendar" unchanged. */
export function previewCard(visit: Visit, property: Property, typed: { url: string; source: string }, preview: CalendarPreview): SafeHtml {
  const { result } = preview;
  const source = result.ok ? result.preview.source : result.source;
  return html`<section class="card ${result.ok ? "success-card" : "warning-card"}" id="add-calendar" aria-labelledby="preview-title">
  <h2 id="preview-title">Check this calendar before saving</h2>
  <p class="muted">Read once just now, as a sync reads it (<code>calsync calendar test</code> shows the same). Nothing is saved yet.</p>
  ${result.ok ? readableVerdict(result.preview) : unreadableVerdict(result.error)}
  <dl class="facts">
    <div class="wide"><dt>Feed</dt><dd><code>${maskUrl(typed.url)}</code></dd></div>
    <div><dt>Channel</dt><dd><span class="chip source-${source}">${source}</span>${typed.source === "" ? html` <span class="hint">detected from the link</span>` : html``}</dd></div>
    ${result.ok ? counts(result.preview) : failure(result.error)}
  </dl>
  ${preview.notes.map((note) => flashMessage({ tone: "warn", text: `Note: ${note}` }))}
  ${result.ok ? warningList(result.preview.warnings) : html``}
  <div class="actions">
    <form method="post" action="$${url(`/properties/${property.id}/calendars`)}">${csrfField(visit.csrf)}
      <input type="hidden" name="url" value="${typed.url}"><input type="hidden" name="source" value="${typed.source}"><input type="hidden" name="confirm" value="1">
      <button type="submit" class="button primary">Save calendar</button></form>
    <a class="button ghost" href="$${url(`/properties/${property.id}`)}">Cancel</a>
  </div>
</section>`;
}

function readableVerdict(preview: FeedPreview): SafeHtml {
  const found = `${plural(preview.bookings, "booking", "bookings")} and ${plural(preview.blocks, "block", "blocks")}`;
  const text = `Readable: a sync will import ${found}.${preview.warnings.length > 0 ? " Some events cannot be read; see below." : ""}`;
  return flashMessage({ tone: preview.warnings.length > 0 ? "warn" : "ok", text });
}

// Saving stays possible: a feed can be down for an hour, and the owner knows whether the link is right.
function unreadableVerdict(error: SyncError): SafeHtml {
  const text =
    `This feed cannot be read right now: a sync would fail it with ${error.code}. ` +
    "You can still save it (a channel may be down for a while); every sync will report it until it answers.";
  return flashMessage({ tone: "error", text });
}

function counts(preview: FeedPreview): SafeHtml {
  const night = (date: string | null) => (date === null ? html`<span class="muted">none</span>` : html`<time datetime="${date}">${longDay(date)}</time>`);
  return html`<div><dt>Bookings</dt><dd>${preview.bookings}</dd></div>
    <div><dt>Blocks</dt><dd>${preview.blocks}</dd></div>
    <div><dt>First night</dt><dd>${night(preview.firstNight)}</dd></div>
    <div><dt>Last night</dt><dd>${night(preview.lastNight)}</dd></div>`;
}

function failure(error: SyncError): SafeHtml {
  return html`<div class="wide"><dt>Error</dt><dd><code>${error.code}</code><div class="error-text">${error.message}</div></dd></div>`;
}

function warningList(warnings: readonly SyncWarning[]): SafeHtml {
  if (warnings.length === 0) return html``;
  const items = warnings.slice(0, WARNINGS_SHOWN).map((w) => html`<li><code>${w.code}</code>${w.uid ? html` <span class="muted">${w.uid}</span>` : html``}: ${w.message}</li>`);
  const more = warnings.length > WARNINGS_SHOWN ? html`<li class="muted">and ${warnings.length - WARNINGS_SHOWN} more</li>` : html``;
  return html`<h3>${plural(warnings.length, "warning", "warnings")}</h3><ul class="preview-warnings">${items}${more}</ul>`;
}
