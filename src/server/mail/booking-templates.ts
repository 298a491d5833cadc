// The owner's "bookings changed" mail (CONTRACT §18 "Booking mails to owners"): one sync's created, moved or
// cancelled bookings, a group per calendar, each listed by arrival. The owner's own data (the summary the channel
// wrote), escaped by the `html` tag like every mail; no link but the property's page.
import { channelName } from "../../channel-words.js";
import { bookingChangeGroups, type BookingChangeLine } from "../../store/mail-outbox.js";
import { longDay, plural } from "../dashboard/format.js";
import { html, url } from "../dashboard/html.js";
import { mail, type MailContext, type RenderedMail } from "./mail-parts.js";

/** Renders a "bookings changed" mail from its payload: one calendar's changes, or several merged into one. */
export function bookingChangesMail(payload: unknown, { baseUrl }: MailContext): RenderedMail {
  const groups = bookingChangeGroups(payload).map((group) => ({
    name: channelName(group.source),
    propertyName: group.propertyName,
    link: `${baseUrl}/properties/${encodeURIComponent(group.propertyId)}/timeline`,
    lines: group.changes.map(lineOf),
  }));
  // Calendars finish a run in any order; the owner reads them by property, then channel.
  groups.sort((a, b) => a.propertyName.localeCompare(b.propertyName) || a.name.localeCompare(b.name));
  const count = groups.reduce((total, group) => total + group.lines.length, 0);
  const first = groups[0]!;
  const subject =
    groups.length === 1
      ? `${plural(count, "booking", "bookings")} changed on ${first.name}: ${first.propertyName}`
      : `${plural(count, "booking", "bookings")} changed: ${[...new Set(groups.map((g) => g.propertyName))].join(", ")}`;
  const text = groups.flatMap((g, i) => [
    ...(i > 0 ? [""] : []),
    `${g.name} changed these bookings of ${g.propertyName}:`,
    "",
    ...g.lines.map((l) => `  ${l}`),
    "",
    "The timeline:",
    g.link,
  ]);
  return mail(
    subject,
    text,
    html`${groups.map(
      (g) => html`<p>${g.name} changed these bookings of <strong>${g.propertyName}</strong>:</p>
<ul>${g.lines.map((l) => html`<li>${l}</li>`)}</ul>
<p><a href="$${url(g.link)}">Open the timeline</a></p>`,
    )}`,
  );
}

function lineOf(change: BookingChangeLine): string {
  const stay = `${longDay(change.arrival)} to ${longDay(change.departure)}`;
  const who = change.summary ? ` (${change.summary})` : "";
  if (change.change === "created") return `New: ${stay}${who}`;
  if (change.change === "cancelled") return `Cancelled: ${stay}${who}`;
  return `Moved: ${stay}${who}, was ${longDay(change.previous!.arrival)} to ${longDay(change.previous!.departure)}`;
}
