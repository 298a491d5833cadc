// The mails' words (CONTRACT §16): a subject, a plain text part and an HTML part per kind. The HTML is built
// only through the dashboard's `html` tag, so every property name and feed text is escaped by construction.
// Nothing secret goes in: no token, password or feed URL — only the one-time link of an invite or reset,
// which is the point of those mails.
import type { MailKind } from "../../store/types.js";
import type { BookingConflictEvent, CalendarFailedEvent, CalendarRecoveredEvent } from "../../types.js";
import { longDay, plural } from "../dashboard/format.js";
import { html, url } from "../dashboard/html.js";
import { bookingChangesMail } from "./booking-templates.js";
import { channelMail } from "./channel-templates.js";
import { cleanerMail } from "./cleaner-templates.js";
import { mail, when, type MailContext, type RenderedMail } from "./mail-parts.js";

export type { MailContext, RenderedMail } from "./mail-parts.js";

/** The payload of an invite or a reset mail. */
export interface LinkPayload {
  url: string;
  expiresAt: string;
}

/** Renders a mail of `kind` from its stored payload; throws on a payload that is not of its kind. */
export function renderMail(kind: MailKind, payload: unknown, context: MailContext): RenderedMail {
  switch (kind) {
    case "invite":
      return inviteMail(payload as LinkPayload, context);
    case "password_reset":
      return resetMail(payload as LinkPayload, context);
    case "booking_conflict":
      return conflictMail(payload as BookingConflictEvent, context);
    case "calendar_failed":
      return failedMail(payload as CalendarFailedEvent, context);
    case "calendar_recovered":
      return recoveredMail(payload as CalendarRecoveredEvent, context);
    case "channel_stale":
    case "channel_recovered":
    case "channel_exposed":
      return channelMail(kind, payload, context);
    case "bookings_changed":
      return bookingChangesMail(payload, context);
    case "cleaner_turnovers":
      return cleanerMail(payload, context);
  }
}

function inviteMail({ url: link, expiresAt }: LinkPayload, { ownerName }: MailContext): RenderedMail {
  const until = when(expiresAt);
  return mail(
    "Your calsync dashboard: choose a password",
    [`Hello ${ownerName},`, "", "Choose a password for the calsync dashboard at this link. It works once, until " + until + ":", "", link,
      "", "You then sign in with this email address and that password."],
    html`<p>Hello ${ownerName},</p>
<p>Choose a password for the calsync dashboard. The link works once, until ${until}.</p>
<p><a href="$${url(link)}">Choose a password</a></p>
<p>You then sign in with this email address and that password.</p>`,
  );
}

function resetMail({ url: link, expiresAt }: LinkPayload, { ownerName }: MailContext): RenderedMail {
  const until = when(expiresAt);
  return mail(
    "Reset your calsync password",
    [`Hello ${ownerName},`, "", `Someone asked to reset the password of your calsync dashboard. Choose a new one at this link (it works once, until ${until}):`,
      "", link, "", "Setting it signs out every other browser. If you did not ask for this, ignore this mail: your password stays as it is."],
    html`<p>Hello ${ownerName},</p>
<p>Someone asked to reset the password of your calsync dashboard. The link works once, until ${until}.</p>
<p><a href="$${url(link)}">Choose a new password</a></p>
<p>Setting it signs out every other browser. If you did not ask for this, ignore this mail: your password stays as it is.</p>`,
  );
}

// A direct stay (CONTRACT §14) has no channel to cancel it on: it is cancelled in calsync, and the mail says so.
function conflictMail({ data }: BookingConflictEvent, { baseUrl }: MailContext): RenderedMail {
  const sources = [...new Set(data.reservations.map((r) => r.source))];
  const channels = sources.filter((s) => s !== "direct");
  const direct = sources.includes("direct");
  const where = direct ? `${channels.length > 0 ? `${channels.join(", ")} and ` : ""}a direct stay in calsync` : channels.join(", ");
  const stay = `${plural(nightCount(data.from, data.to), "night", "nights")}: ${longDay(data.from)} to ${longDay(data.to)} (check-out), on ${where}`;
  const advice = !direct
    ? "Cancel one of the bookings on its channel, or move the guest."
    : channels.length === 0
      ? "Cancel one of the direct stays in calsync (the timeline links to them), or move the guest."
      : `Cancel the ${channels.join(" or ")} booking on ${channels.length === 1 ? "that channel" : "its channel"}, or the direct stay in calsync (the timeline links to it), or move the guest.`;
  const link = `${baseUrl}/properties/${encodeURIComponent(data.propertyId)}/timeline`;
  return mail(
    `Double booking: ${data.propertyName}`,
    [`${data.propertyName} is booked twice for the same nights:`, "", `  ${stay}`, "", `${advice} The timeline:`, link],
    html`<p><strong>${data.propertyName}</strong> is booked twice for the same nights:</p>
<p>${stay}</p>
<p>${advice}</p>
<p><a href="$${url(link)}">Open the timeline</a></p>`,
  );
}

function failedMail({ data }: CalendarFailedEvent, { baseUrl }: MailContext): RenderedMail {
  const { calendar } = data;
  const channel = calendar.source;
  const link = `${baseUrl}/properties/${encodeURIComponent(calendar.propertyId)}`;
  const since = when(data.failingSince);
  return mail(
    `Calendar failing: ${calendar.propertyName} (${channel})`,
    [`The ${channel} calendar of ${calendar.propertyName} failed ${data.consecutiveFailures} times in a row, since ${since}:`,
      `  ${data.error.message} (${data.error.code})`, "",
      "Its bookings are not being read until it works again, so double bookings may go unseen. The property:", link],
    html`<p>The ${channel} calendar of <strong>${calendar.propertyName}</strong> failed ${data.consecutiveFailures} times in a row, since ${since}:</p>
<p><code>${data.error.message}</code> (${data.error.code})</p>
<p>Its bookings are not being read until it works again, so double bookings may go unseen.</p>
<p><a href="$${url(link)}">Open the property</a></p>`,
  );
}

function recoveredMail({ data }: CalendarRecoveredEvent, { baseUrl }: MailContext): RenderedMail {
  const { calendar } = data;
  const channel = calendar.source;
  const link = `${baseUrl}/properties/${encodeURIComponent(calendar.propertyId)}`;
  return mail(
    `Calendar working again: ${calendar.propertyName} (${channel})`,
    [`The ${channel} calendar of ${calendar.propertyName} synced again after ${data.consecutiveFailures} failures in a row.`, "", link],
    html`<p>The ${channel} calendar of <strong>${calendar.propertyName}</strong> synced again after ${data.consecutiveFailures} failures in a row.</p>
<p><a href="$${url(link)}">Open the property</a></p>`,
  );
}

function nightCount(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
