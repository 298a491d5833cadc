// Owners: the people whose properties are synced; everything else hangs off one. Their dashboard
// credentials (email, password hash) live on the same row.
import type Database from "better-sqlite3";
import { newId } from "../../ids.js";
import { toOwner, type OwnerRow } from "./rows.js";
import type { Store } from "../types.js";

export type OwnerQueries = Pick<
  Store,
  "createOwner" | "listOwners" | "getOwner" | "setOwnerEmail" | "findOwnerByEmail" | "ownerPasswordHash" | "setOwnerPassword"
>;

/** Prepares the owner statements of one database. */
export function ownerQueries(db: Database.Database): OwnerQueries {
  const insert = db.prepare<[string, string, string | null, string]>(
    "INSERT INTO owners (id, name, email, created_at) VALUES (?, ?, ?, ?)",
  );
  // rowid is creation order whatever the clock did between two inserts.
  const all = db.prepare<[], OwnerRow>("SELECT id, name, email, created_at FROM owners ORDER BY rowid");
  const one = db.prepare<[string], OwnerRow>("SELECT id, name, email, created_at FROM owners WHERE id = ?");
  const byEmail = db.prepare<[string], OwnerRow>("SELECT id, name, email, created_at FROM owners WHERE email = ?");
  const setEmail = db.prepare<[string | null, string]>("UPDATE owners SET email = ? WHERE id = ?");
  const passwordOf = db.prepare<[string], { password_hash: string | null }>("SELECT password_hash FROM owners WHERE id = ?");
  const setPassword = db.prepare<[string, string]>("UPDATE owners SET password_hash = ? WHERE id = ?");
  const endSessions = db.prepare<[string]>("DELETE FROM owner_sessions WHERE owner_id = ?");
  // A new password must end the sessions the old one opened, or a thief's session would outlive the change.
  const changePassword = db.transaction((id: string, hash: string) => {
    setPassword.run(hash, id);
    endSessions.run(id);
  });

  return {
    async createOwner(name, options = {}) {
      const owner = { id: newId("own"), name, email: options.email ?? null, createdAt: new Date().toISOString() };
      insert.run(owner.id, owner.name, owner.email, owner.createdAt);
      return owner;
    },
    listOwners: async () => all.all().map(toOwner),
    async getOwner(id) {
      const row = one.get(id);
      return row && toOwner(row);
    },
    async setOwnerEmail(id, email) {
      setEmail.run(email, id);
    },
    async findOwnerByEmail(email) {
      const row = byEmail.get(email);
      return row && toOwner(row);
    },
    ownerPasswordHash: async (id) => passwordOf.get(id)?.password_hash ?? null,
    async setOwnerPassword(id, hash) {
      changePassword(id, hash);
    },
  };
}
