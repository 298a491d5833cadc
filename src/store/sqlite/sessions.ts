// Dashboard sign-in state: one-time invites, server-side sessions and failed sign-ins. Only hashes
// of invite tokens and session cookies are stored, so a copy of the database opens no account.
import { randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
import { newId } from "../../ids.js";
import { mailWriter } from "./mail.js";
import type { InviteRecord, QueuedMail, SessionRecord, SignInReservation, Store } from "../types.js";

export type SessionQueries = Pick<
  Store,
  | "createInvite"
  | "findInvite"
  | "consumeInvite"
  | "createSession"
  | "findSession"
  | "touchSession"
  | "deleteSession"
  | "deleteIdleSessions"
  | "reserveSignInAttempt"
  | "releaseSignInAttempt"
  | "signInFailures"
  | "clearSignInFailures"
>;

/** An invite row as both stores read it. */
export interface InviteRow { id: string; owner_id: string; created_at: string; expires_at: string; used_at: string | null }
/** A session row as both stores read it. */
export interface SessionRow { id: string; owner_id: string; created_at: string; last_seen_at: string }

/** An invite row as a record (the PostgreSQL store reads the same columns). */
export const toInvite = (row: InviteRow): InviteRecord => ({
  id: row.id,
  ownerId: row.owner_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  usedAt: row.used_at,
});
/** A session row as a record (the PostgreSQL store reads the same columns). */
export const toSession = (row: SessionRow): SessionRecord => ({
  id: row.id,
  ownerId: row.owner_id,
  createdAt: row.created_at,
  lastSeenAt: row.last_seen_at,
});

/** Prepares the invite, session and sign-in failure statements of one database. */
export function sessionQueries(db: Database.Database): SessionQueries {
  const insertInvite = db.prepare<[string, string, string, string, string]>(
    "INSERT INTO owner_invites (id, owner_id, hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
  );
  const openInvite = db.prepare<[string, string], InviteRow>(
    "SELECT id, owner_id, created_at, expires_at, used_at FROM owner_invites WHERE hash = ? AND used_at IS NULL AND expires_at > ?",
  );
  const retireInvites = db.prepare<[string, string]>("UPDATE owner_invites SET used_at = ? WHERE owner_id = ? AND used_at IS NULL");
  // Read and retire in one write transaction, so two tabs posting the same link cannot both use it.
  const consume = db.transaction((hash: string, now: string): string | undefined => {
    const invite = openInvite.get(hash, now);
    if (!invite) return undefined;
    retireInvites.run(now, invite.owner_id);
    return invite.owner_id;
  });

  const insertSession = db.prepare<[string, string, string, string, string]>(
    "INSERT INTO owner_sessions (id, owner_id, hash, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)",
  );
  const sessionByHash = db.prepare<[string], SessionRow>(
    "SELECT id, owner_id, created_at, last_seen_at FROM owner_sessions WHERE hash = ?",
  );
  const touch = db.prepare<[string, string]>("UPDATE owner_sessions SET last_seen_at = ? WHERE id = ?");
  const remove = db.prepare<[string]>("DELETE FROM owner_sessions WHERE id = ?");
  const removeIdle = db.prepare<[string]>("DELETE FROM owner_sessions WHERE last_seen_at < ?");

  const insertAttempt = db.prepare<[string, string, string]>("INSERT INTO sign_in_failures (key, at, attempt) VALUES (?, ?, ?)");
  // The limit-th newest attempt under a key: when there is one, the key is full until it leaves the window.
  const limitthNewest = db.prepare<[string, string, number], { at: string }>(
    "SELECT at FROM sign_in_failures WHERE key = ? AND at > ? ORDER BY at DESC LIMIT 1 OFFSET ?",
  );
  const pruneAttempts = db.prepare<[string]>("DELETE FROM sign_in_failures WHERE at <= ?");
  // Count and insert under IMMEDIATE, which holds the file's write lock from the first read: requests in
  // flight, in this process or another, each see the attempts of the ones before them.
  const reserve = db.transaction((keys: string[], at: string, since: string, limit: number): SignInReservation => {
    pruneAttempts.run(since);
    let freedBy: string | undefined;
    for (const key of keys) {
      const full = limitthNewest.get(key, since, limit - 1);
      if (full && (freedBy === undefined || full.at > freedBy)) freedBy = full.at;
    }
    if (freedBy !== undefined) return { reserved: false, freedBy };
    const attempt = randomUUID();
    for (const key of keys) insertAttempt.run(key, at, attempt);
    return { reserved: true, attempt };
  });
  const release = db.prepare<[string]>("DELETE FROM sign_in_failures WHERE attempt = ?");
  const failuresSince = db.prepare<[string, string], { at: string }>(
    "SELECT at FROM sign_in_failures WHERE key = ? AND at >= ? ORDER BY at",
  );
  const clearFailures = db.prepare<[string]>("DELETE FROM sign_in_failures WHERE key = ?");

  const mails = mailWriter(db);
  // The link's mail commits with the invite it carries, or not at all (CONTRACT §16).
  const addInvite = db.transaction((invite: InviteRecord, hash: string, mail: QueuedMail | undefined) => {
    insertInvite.run(invite.id, invite.ownerId, hash, invite.createdAt, invite.expiresAt);
    if (mail) mails.add(invite.ownerId, mail);
  });

  return {
    async createInvite({ ownerId, hash, expiresAt, mail }) {
      const invite = { id: newId("inv"), ownerId, createdAt: new Date().toISOString(), expiresAt: expiresAt.toISOString(), usedAt: null };
      addInvite(invite, hash, mail);
      return invite;
    },
    async findInvite(hash, now) {
      const row = openInvite.get(hash, now.toISOString());
      return row && toInvite(row);
    },
    consumeInvite: async (hash, now) => consume.immediate(hash, now.toISOString()),

    async createSession({ ownerId, hash, at }) {
      const session = { id: newId("ses"), ownerId, createdAt: at.toISOString(), lastSeenAt: at.toISOString() };
      insertSession.run(session.id, ownerId, hash, session.createdAt, session.lastSeenAt);
      return session;
    },
    async findSession(hash) {
      const row = sessionByHash.get(hash);
      return row && toSession(row);
    },
    async touchSession(id, at) {
      touch.run(at.toISOString(), id);
    },
    async deleteSession(id) {
      remove.run(id);
    },
    deleteIdleSessions: async (before) => removeIdle.run(before.toISOString()).changes,

    reserveSignInAttempt: async ({ keys, at, since, limit }) => reserve.immediate(keys, at.toISOString(), since.toISOString(), limit),
    async releaseSignInAttempt(attempt) {
      release.run(attempt);
    },
    signInFailures: async (key, since) => failuresSince.all(key, since.toISOString()).map((row) => row.at),
    async clearSignInFailures(key) {
      clearFailures.run(key);
    },
  };
}
