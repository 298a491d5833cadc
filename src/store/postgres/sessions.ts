// Dashboard sign-in state: one-time invites, server-side sessions and failed sign-ins. Only hashes
// of invite tokens and session cookies are stored, so a copy of the database opens no account.
// Failed sign-ins live here rather than in memory so that every instance counts the same failures.
import { randomUUID } from "node:crypto";
import { newId } from "../../ids.js";
import type { PgDatabase } from "./pool.js";
import type { SignInReservation } from "../types.js";
import { addMail } from "./mail.js";
import { toInvite, toSession, type InviteRow, type SessionQueries, type SessionRow } from "../sqlite/sessions.js";

// "cals" + 2: the class of the sign-in throttle's advisory locks (migrations take "cals", 1). The sorted
// subquery is kept apart (OFFSET 0), so the locks are taken in hash order.
const KEY_LOCKS = `
  SELECT pg_advisory_xact_lock(1667329141, h)
  FROM (SELECT DISTINCT hashtext(key) AS h FROM unnest($1::text[]) AS key ORDER BY h OFFSET 0) AS hashes`;
// The latest, over the keys, of each key's limit-th newest attempt in the window (NULL: no key is full).
const LIMITTH_NEWEST = `
  SELECT max(nth.at) AS at FROM unnest($1::text[]) AS k(name),
  LATERAL (SELECT f.at FROM sign_in_failures f WHERE f.key = k.name AND f.at > $2 ORDER BY f.at DESC LIMIT 1 OFFSET $3) AS nth`;

const OPEN_INVITE = `
  SELECT id, owner_id, created_at, expires_at, used_at FROM owner_invites WHERE hash = $1 AND used_at IS NULL AND expires_at > $2`;

/** The invite, session and sign-in failure queries of one database. */
export function sessionQueries(db: PgDatabase): SessionQueries {
  return {
    async createInvite({ ownerId, hash, expiresAt, mail }) {
      const invite = { id: newId("inv"), ownerId, createdAt: new Date().toISOString(), expiresAt: expiresAt.toISOString(), usedAt: null };
      // The link's mail commits with the invite it carries, or not at all (CONTRACT §16).
      await db.transaction(async (sql) => {
        await sql.run(
          "INSERT INTO owner_invites (id, owner_id, hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
          [invite.id, ownerId, hash, invite.createdAt, invite.expiresAt],
        );
        if (mail) await addMail(sql, ownerId, mail);
      });
      return invite;
    },
    async findInvite(hash, now) {
      const [row] = await db.query<InviteRow>(OPEN_INVITE, [hash, now.toISOString()]);
      return row && toInvite(row);
    },
    // Two tabs posting one link, or two links of one owner, at once: the owner's row is locked first, so the
    // second waits, then reads the invites afresh (READ COMMITTED) and finds them retired: one use only.
    consumeInvite: (hash, now) =>
      db.transaction(async (sql) => {
        const at = now.toISOString();
        const locked = await sql.query(
          "SELECT 1 FROM owners WHERE id = (SELECT owner_id FROM owner_invites WHERE hash = $1) FOR NO KEY UPDATE",
          [hash],
        );
        if (locked.length === 0) return undefined;
        const [invite] = await sql.query<InviteRow>(OPEN_INVITE, [hash, at]);
        if (!invite) return undefined;
        await sql.run("UPDATE owner_invites SET used_at = $1 WHERE owner_id = $2 AND used_at IS NULL", [at, invite.owner_id]);
        return invite.owner_id;
      }),

    async createSession({ ownerId, hash, at }) {
      const session = { id: newId("ses"), ownerId, createdAt: at.toISOString(), lastSeenAt: at.toISOString() };
      await db.run(
        "INSERT INTO owner_sessions (id, owner_id, hash, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $5)",
        [session.id, ownerId, hash, session.createdAt, session.lastSeenAt],
      );
      return session;
    },
    async findSession(hash) {
      const [row] = await db.query<SessionRow>(
        "SELECT id, owner_id, created_at, last_seen_at FROM owner_sessions WHERE hash = $1",
        [hash],
      );
      return row && toSession(row);
    },
    async touchSession(id, at) {
      await db.run("UPDATE owner_sessions SET last_seen_at = $1 WHERE id = $2", [at.toISOString(), id]);
    },
    async deleteSession(id) {
      await db.run("DELETE FROM owner_sessions WHERE id = $1", [id]);
    },
    deleteIdleSessions: (before) => db.run("DELETE FROM owner_sessions WHERE last_seen_at < $1", [before.toISOString()]),

    // Every key's advisory lock first, in one order (so two requests never wait on each other crosswise):
    // a request in flight on any instance waits here, then counts the attempts of the ones before it.
    reserveSignInAttempt: ({ keys, at, since, limit }) =>
      db.transaction(async (sql): Promise<SignInReservation> => {
        await sql.query(KEY_LOCKS, [keys]);
        await sql.run("DELETE FROM sign_in_failures WHERE at <= $1", [since.toISOString()]);
        const [full] = await sql.query<{ at: string | null }>(LIMITTH_NEWEST, [keys, since.toISOString(), limit - 1]);
        if (full?.at) return { reserved: false, freedBy: full.at };
        const attempt = randomUUID();
        await sql.run(
          "INSERT INTO sign_in_failures (key, at, attempt) SELECT key, $2::timestamptz, $3 FROM unnest($1::text[]) AS key",
          [keys, at.toISOString(), attempt],
        );
        return { reserved: true, attempt };
      }),
    async releaseSignInAttempt(attempt) {
      await db.run("DELETE FROM sign_in_failures WHERE attempt = $1", [attempt]);
    },
    signInFailures: async (key, since) =>
      (await db.query<{ at: string }>(
        "SELECT at FROM sign_in_failures WHERE key = $1 AND at >= $2 ORDER BY at, seq",
        [key, since.toISOString()],
      )).map((row) => row.at),
    async clearSignInFailures(key) {
      await db.run("DELETE FROM sign_in_failures WHERE key = $1", [key]);
    },
  };
}
