// Owners: the people whose properties are synced; everything else hangs off one.
import type Database from "better-sqlite3";
import { newId } from "../ids.js";
import { toOwner, type OwnerRow } from "./rows.js";
import type { Store } from "../types.js";

export type OwnerQueries = Pick<Store, "createOwner" | "listOwners" | "getOwner">;

/** Prepares the owner statements of one database. */
export function ownerQueries(db: Database.Database): OwnerQueries {
  const insert = db.prepare<[string, string, string]>("INSERT INTO owners (id, name, created_at) VALUES (?, ?, ?)");
  // rowid is creation order whatever the clock did between two inserts.
  const all = db.prepare<[], OwnerRow>("SELECT * FROM owners ORDER BY rowid");
  const one = db.prepare<[string], OwnerRow>("SELECT * FROM owners WHERE id = ?");

  return {
    async createOwner(name) {
      const owner = { id: newId("own"), name, createdAt: new Date().toISOString() };
      insert.run(owner.id, owner.name, owner.createdAt);
      return owner;
    },
    listOwners: async () => all.all().map(toOwner),
    async getOwner(id) {
      const row = one.get(id);
      return row && toOwner(row);
    },
  };
}
