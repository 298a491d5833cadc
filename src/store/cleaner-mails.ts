// Cleaners by mail (CONTRACT §18), shared by both stores' sync ports: the property's turnovers of the next 14
// days (its zone) before and after a calendar's write, and when they differ, one mail per cleaner address
// with a one-click unsubscribe token of its own (stored hashed; the plain token lives only in the mail's
// payload, which the outbox forgets once sent). Nothing about the guest goes in.
import { createHash } from "node:crypto";
import { addDays, todayAt } from "../engine/nights.js";
import { turnoverChanges, type TurnoverChange } from "../engine/turnover-changes.js";
import { propertyTurnovers, type TurnoverBookingInput } from "../engine/turnovers.js";
import { randomBase62 } from "../ids.js";
import { EVENT_MAIL_LIFETIME_MS } from "./mail-outbox.js";
import type { QueuedMail } from "./mail-types.js";

/** Days ahead a cleaner hears about. */
export const CLEANER_DAYS = 14;

/** A property as its cleaners' mails need it. */
export interface CleanerProperty {
  id: string;
  name: string;
  timeZone: string | null;
  checkInTime: string;
  checkOutTime: string;
  bufferNights: number;
  cleanerEmails: string[];
}

/** What a cleaner's mail holds until sent. */
export interface CleanerMailPayload {
  /** Whose list the recipient must still be on when the mail is sent (absent in mails an older calsync queued). */
  propertyId?: string;
  propertyName: string;
  changes: TurnoverChange[];
  /** The plain unsubscribe token: in the payload only, which is dropped once the mail is sent or given up. */
  unsubscribeToken: string;
}

/** A cleaner's mail to write, with the hash of its unsubscribe token to store. */
export interface CleanerMail {
  to: string;
  tokenHash: string;
  mail: QueuedMail;
}

/** The first day of the window bookings are read from (a turnover's departure is on or after it). */
export function cleanerWindowStart(property: Pick<CleanerProperty, "timeZone">, now: Date): string {
  return todayAt(now, property.timeZone);
}

/** The mails a change from `before` to `after` (the property's active bookings, not echoes) makes. */
export function cleanerMails(
  property: CleanerProperty,
  before: readonly TurnoverBookingInput[],
  after: readonly TurnoverBookingInput[],
  now = new Date(),
): CleanerMail[] {
  if (property.cleanerEmails.length === 0) return [];
  const from = cleanerWindowStart(property, now);
  const range = { from, to: addDays(from, CLEANER_DAYS) };
  const settings = { propertyId: property.id, checkInTime: property.checkInTime, checkOutTime: property.checkOutTime, bufferNights: property.bufferNights };
  const changes = turnoverChanges(propertyTurnovers(before, settings, range), propertyTurnovers(after, settings, range));
  if (changes.length === 0) return [];
  const expiresAt = new Date(now.getTime() + EVENT_MAIL_LIFETIME_MS);
  return property.cleanerEmails.map((to) => {
    const token = randomBase62(43);
    const payload: CleanerMailPayload = { propertyId: property.id, propertyName: property.name, changes, unsubscribeToken: token };
    return { to, tokenHash: hashUnsubscribeToken(token), mail: { kind: "cleaner_turnovers", payload, expiresAt, to } };
  });
}

/**
 * How long a cleaner mail's unsubscribe link works: a year after the mail was queued, then its row goes with the
 * mail worker's pruning (one row per cleaner mail would otherwise pile up for good). A cleaner still mailed has
 * a fresh link in every newer mail.
 */
export const UNSUBSCRIBE_KEPT_MS = 365 * 86_400_000;

/** The oldest creation time of an unsubscribe row kept at `now`. */
export function unsubscribeKeptSince(now: Date): string {
  return new Date(now.getTime() - UNSUBSCRIBE_KEPT_MS).toISOString();
}

/** How an unsubscribe token is stored and looked up. */
export function hashUnsubscribeToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * Whether a claimed cleaner's mail must be dropped rather than sent: its recipient unsubscribed, or the owner took
 * the address off the list (or removed the property), after the mail was queued. `listed` is the property's
 * stored cleaner list now (JSON), null when the property is gone.
 */
export function cleanerNoLongerListed(kind: string, payload: unknown, recipient: string | null, listed: string | null): boolean {
  if (kind !== "cleaner_turnovers" || recipient === null || payload === null) return false;
  const { propertyId } = (typeof payload === "string" ? JSON.parse(payload) : payload) as CleanerMailPayload;
  if (!propertyId) return false;
  return listed === null || !(JSON.parse(listed) as string[]).includes(recipient);
}

/** Why a dropped cleaner's mail was not sent, as the outbox keeps it. */
export const NO_LONGER_LISTED = "not sent: the address is no longer on the property's cleaner list";

/** What a POST of an unsubscribe token did. */
export type UnsubscribeOutcome = "removed" | "already" | "unknown";

/** A property row as both stores read it for its cleaners. */
export interface CleanerPropertyRow {
  id: string; name: string; time_zone: string | null; check_in_time: string; check_out_time: string; buffer_nights: number;
  cleaner_emails: string;
}

/** The row as a CleanerProperty. */
export function toCleanerProperty(row: CleanerPropertyRow): CleanerProperty {
  return {
    id: row.id,
    name: row.name,
    timeZone: row.time_zone,
    checkInTime: row.check_in_time,
    checkOutTime: row.check_out_time,
    bufferNights: row.buffer_nights,
    cleanerEmails: JSON.parse(row.cleaner_emails) as string[],
  };
}

/** Selects a calendar's property as CleanerPropertyRow (`$1`/`?`: the calendar id). */
export const CLEANER_PROPERTY_SELECT = `SELECT p.id, p.name, p.time_zone, p.check_in_time, p.check_out_time, p.buffer_nights, p.cleaner_emails
  FROM calendars c JOIN properties p ON p.id = c.property_id WHERE c.id = `;

/** A stored cleaner list (JSON) without `email`, and whether it was there. */
export function withoutAddress(stored: string, email: string): { emails: string[]; removed: boolean } {
  const list = JSON.parse(stored) as string[];
  const emails = list.filter((e) => e !== email);
  return { emails, removed: emails.length < list.length };
}
