// The mail outbox (CONTRACT §16) on SQLite: mails written inside the transaction of the change they tell
// of (mailWriter), and the claims a mail worker takes so that each mail is sent by one worker at a time.
import type Database from "better-sqlite3";
import { newId } from "../../ids.js";
import type { WebhookEvent } from "../../types.js";
import { bookingChangesMail, mailsForEvents, mergeBookingChanges, wantsAnyMail } from "../mail-outbox.js";
import { cleanerNoLongerListed, hashUnsubscribeToken, NO_LONGER_LISTED, unsubscribeKeptSince, withoutAddress, type UnsubscribeOutcome } from "../cleaner-mails.js";
import type { ClaimedMail, MailKind, MailRecord, MailStatus, NotificationSettings, QueuedMail, Store } from "../types.js";

export type MailQueries = Pick<Store,
  "claimMails" | "finishMail" | "releaseMail" | "pruneMails" | "listMails" | "ownerNotifications" | "setOwnerNotifications" | "unsubscribeCleaner">;

/** A mail row as both stores read it. */
export interface MailRow {
  id: string; owner_id: string; kind: string; status: string; attempts: number; created_at: string; expires_at: string;
  last_attempt_at: string | null; next_attempt_at: string | null; last_error: string | null;
}
/** A claimed mail row as both stores read it (payload as JSON text). */
export interface ClaimedMailRow {
  id: string; owner_id: string; owner_name: string; email: string | null; kind: string; payload: string | null; attempts: number; created_at: string;
  recipient: string | null;
  /** A cleaner's mail: its property's cleaner list now (JSON); null otherwise or when the property is gone. */
  listed: string | null;
}

/** Writes mails; call it inside the transaction of the change they tell of. */
export interface MailWriter {
  /**
   * The owner's mails for `events`, per the owner's settings; nothing for an owner without an email. With
   * `bookingChanges` (a calendar's sync past its first), also the one mail listing its changed bookings.
   */
  addForEvents(ownerId: string, events: readonly WebhookEvent[] | (() => readonly WebhookEvent[]), options?: { bookingChanges?: boolean }): void;
  add(ownerId: string, mail: QueuedMail): void;
}

/** Prepares the mail-writing statements of one database. */
export function mailWriter(db: Database.Database): MailWriter {
  const settingsOf = db.prepare<[string], { email: string | null; mail_conflicts: number; mail_calendars: number; mail_channels: number; mail_bookings: number }>(
    "SELECT email, mail_conflicts, mail_calendars, mail_channels, mail_bookings FROM owners WHERE id = ?",
  );
  const insert = db.prepare<[string, string, string, string, string, string, string, string | null]>(
    `INSERT INTO mail_outbox (id, owner_id, kind, payload, status, attempts, next_attempt_at, expires_at, created_at, recipient)
     VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)`,
  );
  const add = (ownerId: string, mail: QueuedMail) => {
    const at = new Date().toISOString();
    insert.run(newId("mail"), ownerId, mail.kind, JSON.stringify(mail.payload), at, mail.expiresAt.toISOString(), at, mail.to ?? null);
  };
  return {
    add,
    addForEvents(ownerId, given, options = {}) {
      if (Array.isArray(given) && given.length === 0) return;
      const row = settingsOf.get(ownerId);
      if (!row?.email) return;
      const settings = { conflicts: row.mail_conflicts === 1, calendars: row.mail_calendars === 1, channels: row.mail_channels === 1 };
      const bookings = options.bookingChanges === true && row.mail_bookings === 1;
      if (!wantsAnyMail(settings) && !bookings) return;
      const events = typeof given === "function" ? given() : given;
      for (const mail of mailsForEvents(events, settings)) add(ownerId, mail);
      const changed = bookings ? bookingChangesMail(events) : null;
      if (changed) add(ownerId, changed);
    },
  };
}

/** Prepares the mail statements of one database. */
export function mailQueries(db: Database.Database): MailQueries {
  // Due, unexpired, and held by no live claim (a claim past its time belonged to a worker that died).
  const due = db.prepare<[string, string, string, string, number], ClaimedMailRow>(
    `SELECT m.id, m.owner_id, o.name AS owner_name, o.email, m.kind, m.payload, m.attempts, m.created_at, m.recipient,
       p.cleaner_emails AS listed
     FROM mail_outbox m JOIN owners o ON o.id = m.owner_id
     LEFT JOIN properties p ON m.kind = 'cleaner_turnovers' AND p.id = json_extract(m.payload, '$.propertyId')
     WHERE m.status = 'pending' AND m.next_attempt_at <= ? AND m.expires_at > ? AND (m.claimed_until IS NULL OR m.claimed_until <= ?)
       AND (m.kind <> 'bookings_changed' OR NOT EXISTS (SELECT 1 FROM sync_leases l WHERE l.owner_id = m.owner_id AND l.expires_at > ?))
     ORDER BY m.next_attempt_at, m.rowid LIMIT ?`,
  );
  // An owner's other "bookings changed" mails that no live claim holds, to merge into one.
  const waitingBookingMails = db.prepare<[string, string, string, string], { id: string; payload: string }>(
    `SELECT id, payload FROM mail_outbox WHERE owner_id = ? AND kind = 'bookings_changed' AND status = 'pending' AND id <> ?
       AND payload IS NOT NULL AND expires_at > ? AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY rowid`,
  );
  const setPayload = db.prepare<[string, string]>("UPDATE mail_outbox SET payload = ? WHERE id = ?");
  const removeMerged = db.prepare<[string]>("DELETE FROM mail_outbox WHERE id = ?");
  const claim = db.prepare<[string, string, string]>("UPDATE mail_outbox SET claimed_by = ?, claimed_until = ? WHERE id = ?");
  // Once sent or given up, the payload (an invite or reset link among them) is no longer kept.
  const finish = db.prepare<[string, string, string | null, string | null, string, string, string]>(
    `UPDATE mail_outbox SET status = ?, attempts = attempts + 1, last_attempt_at = ?, next_attempt_at = ?, last_error = ?,
     payload = CASE WHEN ? = 'pending' THEN payload ELSE NULL END, claimed_by = NULL, claimed_until = NULL
     WHERE id = ? AND claimed_by = ? AND status = 'pending'`,
  );
  const release = db.prepare<[string, string, string, string]>(
    `UPDATE mail_outbox SET last_attempt_at = ?, last_error = ?, claimed_by = NULL, claimed_until = NULL
     WHERE id = ? AND claimed_by = ? AND status = 'pending'`,
  );
  const expire = db.prepare<[string, string]>(
    `UPDATE mail_outbox SET status = 'failed', payload = NULL, next_attempt_at = NULL,
     last_error = COALESCE(last_error, 'not sent in time') WHERE status = 'pending' AND expires_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)`,
  );
  const prune = db.prepare<[string]>("DELETE FROM mail_outbox WHERE status <> 'pending' AND created_at < ?");
  const pruneUnsubscribes = db.prepare<[string]>("DELETE FROM cleaner_unsubscribes WHERE created_at < ?");
  const list = db.prepare<[string | null, string | null], MailRow>(
    `SELECT id, owner_id, kind, status, attempts, created_at, expires_at, last_attempt_at, next_attempt_at, last_error
     FROM mail_outbox WHERE (? IS NULL OR owner_id = ?) ORDER BY rowid DESC`,
  );
  const settings = db.prepare<[string], { mail_conflicts: number; mail_calendars: number; mail_channels: number; mail_bookings: number }>(
    "SELECT mail_conflicts, mail_calendars, mail_channels, mail_bookings FROM owners WHERE id = ?",
  );
  const setSettings = db.prepare<[number, number, number, number, string]>(
    "UPDATE owners SET mail_conflicts = ?, mail_calendars = ?, mail_channels = ?, mail_bookings = ? WHERE id = ?",
  );
  const findUnsubscribe = db.prepare<[string], { property_id: string; email: string; used_at: string | null; cleaner_emails: string }>(
    `SELECT u.property_id, u.email, u.used_at, p.cleaner_emails FROM cleaner_unsubscribes u JOIN properties p ON p.id = u.property_id
     WHERE u.token_hash = ?`,
  );
  const useUnsubscribe = db.prepare<[string, string]>("UPDATE cleaner_unsubscribes SET used_at = ? WHERE token_hash = ?");
  const setCleaners = db.prepare<[string, string]>("UPDATE properties SET cleaner_emails = ? WHERE id = ?");
  const unsubscribe = db.transaction((hash: string, at: string): UnsubscribeOutcome => {
    const row = findUnsubscribe.get(hash);
    if (!row) return "unknown";
    if (row.used_at !== null) return "already";
    useUnsubscribe.run(at, hash);
    const { emails, removed } = withoutAddress(row.cleaner_emails, row.email);
    if (!removed) return "already";
    setCleaners.run(JSON.stringify(emails), row.property_id);
    return "removed";
  });
  const drop = db.prepare<[string, string, string]>(
    `UPDATE mail_outbox SET status = 'failed', payload = NULL, next_attempt_at = NULL, last_attempt_at = ?, last_error = ?
     WHERE id = ? AND status = 'pending'`,
  );
  const claimDue = db.transaction((worker: string, now: string, until: string, limit: number) => {
    const rows = due.all(now, now, now, now, limit);
    const claimed: ClaimedMailRow[] = [];
    const bookingsOf = new Set<string>();
    for (const row of rows) {
      if (cleanerNoLongerListed(row.kind, row.payload, row.recipient, row.listed)) {
        drop.run(now, NO_LONGER_LISTED, row.id);
        continue;
      }
      if (row.kind === "bookings_changed") {
        // The owner's first one takes the others in (this batch's included): one mail for the owner's run.
        if (bookingsOf.has(row.owner_id)) continue;
        bookingsOf.add(row.owner_id);
        const others = waitingBookingMails.all(row.owner_id, row.id, now, now);
        if (others.length > 0) {
          row.payload = JSON.stringify(mergeBookingChanges([row.payload, ...others.map((other) => other.payload)]));
          setPayload.run(row.payload, row.id);
          for (const other of others) removeMerged.run(other.id);
        }
      }
      claim.run(worker, until, row.id);
      claimed.push(row);
    }
    return claimed;
  });

  return {
    async claimMails({ worker, now, until, limit }) {
      if (limit <= 0) return [];
      return claimDue.immediate(worker, now.toISOString(), until.toISOString(), limit).map(toClaimedMail);
    },
    async finishMail({ id, worker, at, sent, error, nextAttemptAt }) {
      const state: MailStatus = sent ? "sent" : nextAttemptAt ? "pending" : "failed";
      finish.run(state, at.toISOString(), state === "pending" ? nextAttemptAt!.toISOString() : null, sent ? null : error, state, id, worker);
    },
    async releaseMail({ id, worker, at, error }) {
      release.run(at.toISOString(), error, id, worker);
    },
    async pruneMails(before, now = new Date()) {
      expire.run(now.toISOString(), now.toISOString());
      pruneUnsubscribes.run(unsubscribeKeptSince(now));
      return prune.run(before.toISOString()).changes;
    },
    async listMails(ownerId) {
      return list.all(ownerId ?? null, ownerId ?? null).map(toMailRecord);
    },
    async ownerNotifications(ownerId) {
      const row = settings.get(ownerId);
      return {
        conflicts: row ? row.mail_conflicts === 1 : true,
        calendars: row ? row.mail_calendars === 1 : true,
        channels: row ? row.mail_channels === 1 : true,
        bookings: row ? row.mail_bookings === 1 : false,
      };
    },
    async unsubscribeCleaner(token, at = new Date()) {
      return unsubscribe.immediate(hashUnsubscribeToken(token), at.toISOString());
    },
    async setOwnerNotifications(ownerId, value: NotificationSettings) {
      setSettings.run(value.conflicts ? 1 : 0, value.calendars ? 1 : 0, value.channels === false ? 0 : 1, value.bookings === true ? 1 : 0, ownerId);
    },
  };
}

/** A mail row as a record. */
export function toMailRecord(row: MailRow): MailRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    kind: row.kind as MailKind,
    status: row.status as MailStatus,
    attempts: row.attempts,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
  };
}

/** A claimed mail row as what the worker sends. */
export function toClaimedMail(row: ClaimedMailRow): ClaimedMail {
  return {
    id: row.id,
    ownerId: row.owner_id,
    ownerName: row.owner_name,
    to: row.recipient ?? row.email,
    toOwner: row.recipient === null,
    kind: row.kind as MailKind,
    payload: row.payload === null ? null : typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload,
    attempts: row.attempts,
    createdAt: row.created_at,
  };
}
