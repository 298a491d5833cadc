// The owner's "bookings changed" mail (CONTRACT §18 "Booking mails to owners"): one calendar's sync that
// created, moved or cancelled bookings, listed by arrival. The owner's own data (the summary the channel
// wrote), escaped by the `html` tag like every mail; no link but the property's page.
import { channelName } from "../../channel-words.js";
import type { BookingChangeLine, BookingChangesPayload } from "../../store/mail-outbox.js";
import { longDay, plural } from "../dashboard/format.js";
import { html, url } from "../dashboard/html.js";
import { mail, type MailContext, type RenderedMail } from "./mail-parts.js";

/** Renders a "bookings changed" mail from its payload. */
export function bookingChangesMail(payload: unknown, { baseUrl }: MailContext): RenderedMail {
  const { propertyId, propertyName, source, changes } = payload as BookingChangesPayload;
  const name = channelName(source);
  const link = `${baseUrl}/properties/${encodeURIComponent(propertyId)}/timeline`;
  const lines = changes.map(lineOf);
  return mail(
    `${plural(changes.length, "booking", "bookings")} changed on ${name}: ${propertyName}`,
    [`${name} changed these bookings of ${propertyName}:`, "", ...lines.map((l) => `  ${l}`), "", "The timeline:", link],
    html`<p>${name} changed these bookings of <strong>${propertyName}</strong>:</p>
<ul>${lines.map((l) => html`<li>${l}</li>`)}</ul>
<p><a href="$${url(link)}">Open the timeline</a></p>`,
  );
}

function lineOf(change: BookingChangeLine): string {
  const stay = `${longDay(change.arrival)} to ${longDay(change.departure)}`;
  const who = change.summary ? ` (${change.summary})` : "";
  if (change.change === "created") return `New: ${stay}${who}`;
  if (change.change === "cancelled") return `Cancelled: ${stay}${who}`;
  return `Moved: ${stay}${who}, was ${longDay(change.previous!.arrival)} to ${longDay(change.previous!.departure)}`;
}
