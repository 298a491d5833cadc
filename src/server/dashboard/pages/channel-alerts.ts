// The properties overview's mark (CONTRACT §17): a property with a channel link never read, stale, or behind for
// longer than its usual interval gets a pill naming those channels, linking to its Channels section.
import type { Property } from "../../../store/types.js";
import { channelName } from "../../../channel-words.js";
import { needsAttention } from "../../../engine/channel-status.js";
import { channelsOf } from "../../../resources/channels.js";
import type { DashboardContext } from "../context.js";
import { html, url, type SafeHtml } from "../html.js";

/** The mark of each property that needs one, by property id. */
export async function channelAlerts(ctx: DashboardContext, properties: Property[], now: Date): Promise<Map<string, SafeHtml>> {
  const marks = new Map<string, SafeHtml>();
  await Promise.all(
    properties.map(async (property) => {
      const channels = await channelsOf(ctx.store, property, { feedBase: "", now, staleAfterMs: ctx.channelStaleAfterMs });
      const names = channels.filter((c) => needsAttention(c, now)).map((c) => channelName(c.source));
      if (names.length === 0) return;
      const text = `${names.join(", ")}: check ${names.length === 1 ? "its" : "their"} calendar link`;
      marks.set(property.id, html` <a class="pill warn" href="$${url(`/properties/${property.id}#channels`)}">${text}</a>`);
    }),
  );
  return marks;
}
