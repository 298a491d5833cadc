// The mail outbox (CONTRACT §16) on PostgreSQL: mails written inside the transaction of the change they tell
// of (addMails), and the claims mail workers take, so that across every instance each mail is sent by one
// worker at a time (SKIP LOCKED: instances claiming at once take different mails, never waiting).
import { newId } from "../../ids.js";
import type { WebhookEvent } from "../../types.js";
import { bookingChangesMail, mailsForEvents, mergeBookingChanges, wantsAnyMail } from "../mail-outbox.js";
import { cleanerNoLongerListed, hashUnsubscribeToken, NO_LONGER_LISTED, unsubscribeKeptSince, withoutAddress } from "../cleaner-mails.js";
import { toClaimedMail, toMailRecord, type ClaimedMailRow, type MailQueries, type MailRow } from "../sqlite/mail.js";
import type { MailStatus, QueuedMail } from "../types.js";
import type { PgDatabase, Sql } from "./pool.js";

const INSERT = `
  INSERT INTO mail_outbox (id, owner_id, kind, payload, status, attempts, next_attempt_at, expires_at, created_at, recipient)
  VALUES ($1, $2, $3, $4::json, 'pending', 0, $5, $6, $5, $7)`;
// $1 now: due, unexpired, and held by no live claim (a claim past its time belonged to a worker that died).
const CLAIM = `
  UPDATE mail_outbox m SET claimed_by = $2, claimed_until = $3
  FROM (
    SELECT id FROM mail_outbox
    WHERE status = 'pending' AND next_attempt_at <= $1 AND expires_at > $1 AND (claimed_until IS NULL OR claimed_until <= $1)
      AND (kind <> 'bookings_changed' OR NOT EXISTS (
        SELECT 1 FROM sync_leases l WHERE l.owner_id = mail_outbox.owner_id AND l.expires_at > clock_timestamp()))
    ORDER BY next_attempt_at, seq LIMIT $4
    FOR UPDATE SKIP LOCKED
  ) pick, owners o
  WHERE m.id = pick.id AND o.id = m.owner_id
  RETURNING m.id, m.owner_id, o.name AS owner_name, o.email, m.kind, m.payload, m.attempts, m.created_at, m.next_attempt_at, m.seq, m.recipient,
    CASE WHEN m.kind = 'cleaner_turnovers' THEN (SELECT p.cleaner_emails FROM properties p WHERE p.id = m.payload->>'propertyId') END AS listed`;
// An owner's other "bookings changed" mails that no live claim holds ($1 owner, $2 the claimed one, $3 now).
const WAITING_BOOKING_MAILS = `
  SELECT id, payload FROM mail_outbox WHERE owner_id = $1 AND kind = 'bookings_changed' AND status = 'pending' AND id <> $2
    AND payload IS NOT NULL AND expires_at > $3 AND (claimed_until IS NULL OR claimed_until <= $3)
  ORDER BY seq FOR UPDATE SKIP LOCKED`;
const DROP = `
  UPDATE mail_outbox SET status = 'failed', payload = NULL, next_attempt_at = NULL, last_attempt_at = $1, last_error = $2,
    claimed_by = NULL, claimed_until = NULL
  WHERE id = $3 AND status = 'pending'`;
// Once sent or given up, the payload (an invite or reset link among them) is no longer kept.
const FINISH = `
  UPDATE mail_outbox SET status = $1, attempts = attempts + 1, last_attempt_at = $2, next_attempt_at = $3, last_error = $4,
    payload = CASE WHEN $1 = 'pending' THEN payload ELSE NULL END, claimed_by = NULL, claimed_until = NULL
  WHERE id = $5 AND claimed_by = $6 AND status = 'pending'`;
const RELEASE = `
  UPDATE mail_outbox SET last_attempt_at = $1, last_error = $2, claimed_by = NULL, claimed_until = NULL
  WHERE id = $3 AND claimed_by = $4 AND status = 'pending'`;
const EXPIRE = `
  UPDATE mail_outbox SET status = 'failed', payload = NULL, next_attempt_at = NULL, last_error = COALESCE(last_error, 'not sent in time')
  WHERE status = 'pending' AND expires_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)`;

/** Adds `mail` of `ownerId`; call it inside the change's transaction. */
export async function addMail(sql: Sql, ownerId: string, mail: QueuedMail): Promise<void> {
  const at = new Date().toISOString();
  await sql.run(INSERT, [newId("mail"), ownerId, mail.kind, JSON.stringify(mail.payload), at, mail.expiresAt.toISOString(), mail.to ?? null]);
}

/** Adds the owner's mails for `events`, per the owner's settings; nothing for an owner without an email. */
export async function addMailsForEvents(
  sql: Sql, ownerId: string, events: readonly WebhookEvent[], options: { bookingChanges?: boolean } = {},
): Promise<void> {
  if (events.length === 0) return;
  const [row] = await sql.query<{ email: string | null; mail_conflicts: boolean; mail_calendars: boolean; mail_channels: boolean; mail_bookings: boolean }>(
    "SELECT email, mail_conflicts, mail_calendars, mail_channels, mail_bookings FROM owners WHERE id = $1",
    [ownerId],
  );
  if (!row?.email) return;
  const settings = { conflicts: row.mail_conflicts, calendars: row.mail_calendars, channels: row.mail_channels };
  const bookings = options.bookingChanges === true && row.mail_bookings;
  if (!wantsAnyMail(settings) && !bookings) return;
  for (const mail of mailsForEvents(events, settings)) await addMail(sql, ownerId, mail);
  const changed = bookings ? bookingChangesMail(events) : null;
  if (changed) await addMail(sql, ownerId, changed);
}

/** The mail queries of one database. */
export function mailQueries(db: PgDatabase): MailQueries {
  return {
    async claimMails({ worker, now, until, limit }) {
      if (limit <= 0) return [];
      const rows = await db.query<ClaimedMailRow & { next_attempt_at: string; seq: number }>(CLAIM, [now.toISOString(), worker, until.toISOString(), limit]);
      rows.sort((a, b) => a.next_attempt_at.localeCompare(b.next_attempt_at) || a.seq - b.seq);
      const gone = rows.filter((row) => cleanerNoLongerListed(row.kind, row.payload, row.recipient, row.listed));
      for (const row of gone) await db.run(DROP, [now.toISOString(), NO_LONGER_LISTED, row.id]);
      const kept = await mergeOwnersBookingMails(db, rows.filter((row) => !gone.includes(row)), now);
      return kept.map(toClaimedMail);
    },
    async finishMail({ id, worker, at, sent, error, nextAttemptAt }) {
      const state: MailStatus = sent ? "sent" : nextAttemptAt ? "pending" : "failed";
      await db.run(FINISH, [state, at.toISOString(), state === "pending" ? nextAttemptAt!.toISOString() : null, sent ? null : error, id, worker]);
    },
    async releaseMail({ id, worker, at, error }) {
      await db.run(RELEASE, [at.toISOString(), error, id, worker]);
    },
    async pruneMails(before, now = new Date()) {
      await db.run(EXPIRE, [now.toISOString()]);
      await db.run("DELETE FROM cleaner_unsubscribes WHERE created_at < $1", [unsubscribeKeptSince(now)]);
      return db.run("DELETE FROM mail_outbox WHERE status <> 'pending' AND created_at < $1", [before.toISOString()]);
    },
    async listMails(ownerId) {
      const rows = await db.query<MailRow>(
        `SELECT id, owner_id, kind, status, attempts, created_at, expires_at, last_attempt_at, next_attempt_at, last_error
         FROM mail_outbox WHERE ($1::text IS NULL OR owner_id = $1) ORDER BY seq DESC`,
        [ownerId ?? null],
      );
      return rows.map(toMailRecord);
    },
    async ownerNotifications(ownerId) {
      const [row] = await db.query<{ mail_conflicts: boolean; mail_calendars: boolean; mail_channels: boolean; mail_bookings: boolean }>(
        "SELECT mail_conflicts, mail_calendars, mail_channels, mail_bookings FROM owners WHERE id = $1",
        [ownerId],
      );
      return {
        conflicts: row?.mail_conflicts ?? true,
        calendars: row?.mail_calendars ?? true,
        channels: row?.mail_channels ?? true,
        bookings: row?.mail_bookings ?? false,
      };
    },
    async unsubscribeCleaner(token, at = new Date()) {
      const hash = hashUnsubscribeToken(token);
      return db.transaction(async (sql) => {
        // The property row is locked first, so two removals from one property (or a settings save) never lose one.
        const [row] = await sql.query<{ property_id: string; email: string; used_at: string | null; cleaner_emails: string }>(
          `SELECT u.property_id, u.email, u.used_at, p.cleaner_emails FROM cleaner_unsubscribes u JOIN properties p ON p.id = u.property_id
           WHERE u.token_hash = $1 FOR UPDATE OF p, u`,
          [hash],
        );
        if (!row) return "unknown" as const;
        if (row.used_at !== null) return "already" as const;
        await sql.run("UPDATE cleaner_unsubscribes SET used_at = $1 WHERE token_hash = $2", [at.toISOString(), hash]);
        const { emails, removed } = withoutAddress(row.cleaner_emails, row.email);
        if (!removed) return "already" as const;
        await sql.run("UPDATE properties SET cleaner_emails = $1 WHERE id = $2", [JSON.stringify(emails), row.property_id]);
        return "removed" as const;
      });
    },
    async setOwnerNotifications(ownerId, value) {
      await db.run("UPDATE owners SET mail_conflicts = $1, mail_calendars = $2, mail_channels = $3, mail_bookings = $4 WHERE id = $5", [
        value.conflicts,
        value.calendars,
        value.channels !== false,
        value.bookings === true,
        ownerId,
      ]);
    },
  };
}

/**
 * One "bookings changed" mail per owner among `claimed` (CONTRACT §18: one mail per sync): the owner's first
 * takes in its other claimed ones and those waiting unclaimed, which are deleted in the same transaction.
 */
async function mergeOwnersBookingMails<R extends ClaimedMailRow>(db: PgDatabase, claimed: R[], now: Date): Promise<R[]> {
  const heads = new Map<string, R[]>();
  for (const row of claimed) if (row.kind === "bookings_changed") heads.set(row.owner_id, [...(heads.get(row.owner_id) ?? []), row]);
  if (heads.size === 0) return claimed;
  const merged = new Set<R>();
  for (const [ownerId, [head, ...mine]] of heads) {
    await db.transaction(async (sql) => {
      const waiting = await sql.query<{ id: string; payload: unknown }>(WAITING_BOOKING_MAILS, [ownerId, head!.id, now.toISOString()]);
      const others = [...mine.map((row) => ({ id: row.id, payload: row.payload as unknown })), ...waiting];
      if (others.length === 0) return;
      const payload = JSON.stringify(mergeBookingChanges([head!.payload, ...others.map((other) => other.payload)]));
      await sql.run("UPDATE mail_outbox SET payload = $1::json WHERE id = $2", [payload, head!.id]);
      await sql.run("DELETE FROM mail_outbox WHERE id = ANY($1::text[])", [others.map((other) => other.id)]);
      head!.payload = payload;
      for (const row of mine) merged.add(row);
    });
  }
  return claimed.filter((row) => !merged.has(row));
}
