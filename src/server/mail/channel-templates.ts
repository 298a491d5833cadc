// The mails of "what each channel has seen" (CONTRACT §17): a channel that stopped reading the owner's calendar
// (or never did), that reads it again, and nights one may still sell. Only names and dates: never the link itself.
import { channelName, nightRangesWords } from "../../channel-words.js";
import type { ChannelExposedEvent, ChannelRecoveredEvent, ChannelStaleEvent } from "../../types.js";
import { html, url } from "../dashboard/html.js";
import { mail, when, type MailContext, type RenderedMail } from "./mail-parts.js";

/** Renders one of the three channel mails from its event. */
export function channelMail(kind: "channel_stale" | "channel_recovered" | "channel_exposed", payload: unknown, { baseUrl }: MailContext): RenderedMail {
  const event = payload as ChannelStaleEvent | ChannelRecoveredEvent | ChannelExposedEvent;
  const { channel } = event.data;
  const name = channelName(channel.source);
  const link = `${baseUrl}/properties/${encodeURIComponent(channel.propertyId)}#channels`;
  if (kind === "channel_stale") {
    const { lastReadAt } = (event as ChannelStaleEvent).data;
    const what = lastReadAt === null ? `${name} has never read the calendar of ${channel.propertyName}` : `${name} has not read the calendar of ${channel.propertyName} since ${when(lastReadAt)}`;
    const advice = `Until it reads it again, ${name} may sell nights already booked elsewhere. Check the calendar import in ${name}: paste the link shown on the property page.`;
    return mail(`${name} stopped reading your calendar: ${channel.propertyName}`, [`${what}.`, "", advice, "", link],
      html`<p>${what}.</p><p>${advice}</p><p><a href="$${url(link)}">Open the property</a></p>`);
  }
  if (kind === "channel_recovered") {
    const text = `${name} read the calendar of ${channel.propertyName} again at ${when((event as ChannelRecoveredEvent).data.lastReadAt)}.`;
    return mail(`${name} reads your calendar again: ${channel.propertyName}`, [text, "", link], html`<p>${text}</p><p><a href="$${url(link)}">Open the property</a></p>`);
  }
  const { nights, lastReadAt } = (event as ChannelExposedEvent).data;
  const dates = nightRangesWords(nights.map((n) => n.date));
  const text = `${name} may still sell ${dates} at ${channel.propertyName}: they were booked elsewhere after ${name} last read your calendar (${when(lastReadAt)}).`;
  const advice = `Close those nights in ${name} by hand, or check that its calendar import still works.`;
  return mail(`${name} may still sell booked nights: ${channel.propertyName}`, [text, "", advice, "", link],
    html`<p>${text}</p><p>${advice}</p><p><a href="$${url(link)}">Open the property</a></p>`);
}
