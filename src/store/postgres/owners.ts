// Owners: the people whose properties are synced; everything else hangs off one. Their dashboard
// credentials (email, password hash) live on the same row.
import { newId } from "../../ids.js";
import type { PgDatabase } from "./pool.js";
import { toOwner, type OwnerRow } from "./rows.js";
import type { Store } from "../types.js";

export type OwnerQueries = Pick<
  Store,
  "createOwner" | "listOwners" | "getOwner" | "setOwnerEmail" | "findOwnerByEmail" | "ownerPasswordHash" | "setOwnerPassword"
>;

// Never the password hash: it leaves the database only through ownerPasswordHash.
const OWNER_COLUMNS = "id, name, email, created_at";

/** The owner queries of one database. */
export function ownerQueries(db: PgDatabase): OwnerQueries {
  const oneWhere = async (column: "id" | "email", value: string) =>
    (await db.query<OwnerRow>(`SELECT ${OWNER_COLUMNS} FROM owners WHERE ${column} = $1`, [value]))[0];

  return {
    async createOwner(name, options = {}) {
      const owner = { id: newId("own"), name, email: options.email ?? null, createdAt: new Date().toISOString() };
      await db.run(
        "INSERT INTO owners (id, name, email, created_at) VALUES ($1, $2, $3, $4)",
        [owner.id, owner.name, owner.email, owner.createdAt],
      );
      return owner;
    },
    // seq is creation order whatever the clock did between two inserts (SQLite's rowid).
    listOwners: async () => (await db.query<OwnerRow>(`SELECT ${OWNER_COLUMNS} FROM owners ORDER BY seq`)).map(toOwner),
    async getOwner(id) {
      const row = await oneWhere("id", id);
      return row && toOwner(row);
    },
    async setOwnerEmail(id, email) {
      await db.run("UPDATE owners SET email = $1 WHERE id = $2", [email, id]);
    },
    async findOwnerByEmail(email) {
      const row = await oneWhere("email", email);
      return row && toOwner(row);
    },
    ownerPasswordHash: async (id) =>
      (await db.query<{ password_hash: string | null }>("SELECT password_hash FROM owners WHERE id = $1", [id]))[0]?.password_hash ?? null,
    // A new password must end the sessions the old one opened, or a thief's session would outlive the change.
    setOwnerPassword: (id, hash) =>
      db.transaction(async (sql) => {
        await sql.run("UPDATE owners SET password_hash = $1 WHERE id = $2", [hash, id]);
        await sql.run("DELETE FROM owner_sessions WHERE owner_id = $1", [id]);
      }),
  };
}
