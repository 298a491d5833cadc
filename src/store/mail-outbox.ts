// Which webhook events are also mailed to their owner (CONTRACT §16), shared by both stores' outbox writers:
// a double booking first seen, a calendar's third failure in a row, and its recovery.
import type { WebhookEvent } from "../types.js";
import type { MailKind, NotificationSettings, QueuedMail } from "./mail-types.js";

/** An event mail is worth sending within a day; later it is stale news, so it is dropped rather than sent. */
export const EVENT_MAIL_LIFETIME_MS = 30 * 3_600_000;

const KIND_OF: Partial<Record<WebhookEvent["type"], { kind: MailKind; setting: keyof NotificationSettings }>> = {
  "booking.conflict": { kind: "booking_conflict", setting: "conflicts" },
  "calendar.failed": { kind: "calendar_failed", setting: "calendars" },
  "calendar.recovered": { kind: "calendar_recovered", setting: "calendars" },
  "channel.stale": { kind: "channel_stale", setting: "channels" },
  "channel.recovered": { kind: "channel_recovered", setting: "channels" },
  "channel.exposed": { kind: "channel_exposed", setting: "channels" },
};

/** True when any event type could be mailed under `settings` (so a writer builds lazy event lists only then). */
export function wantsAnyMail(settings: NotificationSettings): boolean {
  return settings.conflicts || settings.calendars || settings.channels;
}

/** The mails `events` make for an owner with these settings; each carries its event as payload. */
export function mailsForEvents(events: readonly WebhookEvent[], settings: NotificationSettings, now = new Date()): QueuedMail[] {
  const expiresAt = new Date(now.getTime() + EVENT_MAIL_LIFETIME_MS);
  const mails: QueuedMail[] = [];
  for (const event of events) {
    const mapped = KIND_OF[event.type];
    if (mapped && settings[mapped.setting]) mails.push({ kind: mapped.kind, payload: event, expiresAt });
  }
  return mails;
}
