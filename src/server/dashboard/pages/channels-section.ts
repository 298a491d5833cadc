// The property page's "Channels" section (CONTRACT §17): a row per channel link — the link to copy, when the
// channel last read it, how often it usually reads, its status — and in words the nights a channel may still sell.
import type { Channel } from "../../../channel-types.js";
import { channelName, nightRangesWords, spanWords } from "../../../channel-words.js";
import { channelsOf } from "../../../resources/channels.js";
import type { Property } from "../../../store/types.js";
import type { DashboardContext, Visit } from "../context.js";
import { relativeTime } from "../format.js";
import { html, type SafeHtml } from "../html.js";

const STATUS_WORDS: Record<Channel["status"], { text: string; pill: string }> = {
  never: { text: "never read", pill: "failed" },
  stale: { text: "stopped reading", pill: "failed" },
  behind: { text: "may sell taken nights", pill: "warn" },
  current: { text: "up to date", pill: "ok" },
};

/** The section, or nothing for a property without channel calendars. */
export async function channelsSection(ctx: DashboardContext, visit: Visit, property: Property): Promise<SafeHtml> {
  const now = ctx.now();
  const channels = await channelsOf(ctx.store, property, { feedBase: visit.facts.origin, now, staleAfterMs: ctx.channelStaleAfterMs });
  if (channels.length === 0) return html``;
  const clock = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: property.timeZone ?? undefined });
  const at = (iso: string) => clock.format(new Date(iso));
  const rows = channels.map((c, i) => {
    const status = STATUS_WORDS[c.status];
    const linkId = `channel-link-${i}`;
    return html`<tr>
    <th scope="row" data-label="Channel">${channelName(c.source)}</th>
    <td class="url" data-label="Link to paste">${
      c.url
        ? html`<div class="copy-row"><code id="${linkId}">${c.url}</code><button type="button" class="button small" data-copy="${linkId}" hidden aria-label="${`Copy ${channelName(c.source)}'s link`}">Copy</button></div>`
        : html`<span class="muted">create the feed URL below first</span>`
    }</td>
    <td data-label="Last read">${relativeTime(c.lastReadAt, now, "never")}</td>
    <td data-label="Usually reads">${c.usualIntervalSeconds === null ? html`<span class="muted">not known yet</span>` : `every ${spanWords(c.usualIntervalSeconds)}`}</td>
    <td data-label="Status"><span class="pill ${status.pill}">${status.text}</span></td>
  </tr>`;
  });
  const notes = channels.flatMap((c) => sentences(c, at));
  return html`<section class="card flush" id="channels" aria-labelledby="channels-title">
  <h2 class="card-title" id="channels-title">Channels</h2>
  <p class="muted">Paste each channel's own link into its "import calendar" box: calsync then sees when each one reads your calendar.</p>
  <div class="table-wrap"><table class="data stack-on-phone">
  <thead><tr><th scope="col">Channel</th><th scope="col">Link to paste</th><th scope="col">Last read</th><th scope="col">Usually reads</th><th scope="col">Status</th></tr></thead>
  <tbody>${rows}</tbody>
  </table></div>
  ${notes.length > 0 ? html`<ul class="channel-notes">${notes.map((n) => html`<li>${n}</li>`)}</ul>` : html``}
</section>`;
}

// What an owner must act on, in words: a channel that never read or stopped, and the nights one may still sell.
function sentences(c: Channel, at: (iso: string) => string): string[] {
  const name = channelName(c.source);
  if (c.status === "never") return [`${name} has never read your calendar: two-way sync is not set up there. Paste its link into ${name}'s calendar import.`];
  const usual = c.usualIntervalSeconds === null ? "" : ` and usually reads every ${spanWords(c.usualIntervalSeconds)}`;
  const read = `${name} last read your calendar at ${at(c.lastReadAt!)}${usual}`;
  if (c.status === "stale") return [`${name} has stopped reading your calendar: ${read.slice(name.length + 1)}. Check the import in ${name}.`];
  // One sentence per reservation that took nights: "Booking.com may still sell 10–15 Jul: Airbnb took them at 09:12; …".
  const byStay = new Map<string, Channel["exposedNights"]>();
  for (const night of c.exposedNights) byStay.set(night.reservationId, [...(byStay.get(night.reservationId) ?? []), night]);
  return [...byStay.values()].map((nights) => {
    const first = nights[0]!;
    return `${name} may still sell ${nightRangesWords(nights.map((n) => n.date))}: ${channelName(first.source)} took ${nights.length === 1 ? "it" : "them"} at ${at(first.since)}; ${read}.`;
  });
}
