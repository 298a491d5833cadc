// Owners: the people whose properties are synced; everything else hangs off one.
import { newId } from "../ids.js";
import type { PgDatabase } from "./pool.js";
import { toOwner, type OwnerRow } from "./rows.js";
import type { Store } from "../types.js";

export type OwnerQueries = Pick<Store, "createOwner" | "listOwners" | "getOwner">;

/** The owner queries of one database. */
export function ownerQueries(db: PgDatabase): OwnerQueries {
  return {
    async createOwner(name) {
      const owner = { id: newId("own"), name, createdAt: new Date().toISOString() };
      await db.run("INSERT INTO owners (id, name, created_at) VALUES ($1, $2, $3)", [owner.id, owner.name, owner.createdAt]);
      return owner;
    },
    // seq is creation order whatever the clock did between two inserts (SQLite's rowid).
    listOwners: async () => (await db.query<OwnerRow>("SELECT * FROM owners ORDER BY seq")).map(toOwner),
    async getOwner(id) {
      const [row] = await db.query<OwnerRow>("SELECT * FROM owners WHERE id = $1", [id]);
      return row && toOwner(row);
    },
  };
}
