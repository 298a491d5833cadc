// Properties: an owner's rentals, each with its calendars and an optional outbound feed token.
import { newId, randomBase62 } from "../ids.js";
import { FEED_TOKEN_LENGTH } from "../sqlite/properties.js";
import type { PgDatabase } from "./pool.js";
import { toProperty, type PropertyRow } from "./rows.js";
import type { Store } from "../types.js";

/**
 * The one order of properties everywhere (`p` = properties), exactly SQLite's: the name with ASCII
 * letters folded (SQLite's NOCASE, which leaves other letters alone), then the name, both by bytes
 * (COLLATE "C", not the database's locale), then creation (seq, SQLite's rowid).
 */
export const PROPERTY_ORDER =
  `translate(p.name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') COLLATE "C", p.name COLLATE "C", p.seq`;

export type PropertyQueries = Pick<Store,
  "createProperty" | "listProperties" | "getProperty" | "removeProperty" | "setPropertyFeedToken" | "getPropertyByFeedToken" |
  "propertyFeedToken">;

/**
 * Stamps the outbound feed of calendar `$2`'s property as changed at `$1`. Run inside the writing
 * transaction, with the clock read there, so a change becomes visible no earlier than its stamp.
 */
export const TOUCH_PROPERTY_FEED =
  "UPDATE properties SET feed_changed_at = $1 WHERE id = (SELECT property_id FROM calendars WHERE id = $2)";

/** The property queries of one database. */
export function propertyQueries(db: PgDatabase): PropertyQueries {
  const one = async (id: string) => (await db.query<PropertyRow>("SELECT * FROM properties WHERE id = $1", [id]))[0];
  const setFeedToken = (token: string | null, id: string) =>
    db.run("UPDATE properties SET feed_token = $1 WHERE id = $2", [token, id]);

  return {
    async createProperty(ownerId, name) {
      const [row] = await db.query<PropertyRow>(
        "INSERT INTO properties (id, owner_id, name, created_at) VALUES ($1, $2, $3, $4) RETURNING *",
        [newId("prp"), ownerId, name, new Date().toISOString()],
      );
      return toProperty(row!);
    },
    listProperties: async (ownerId) =>
      (await db.query<PropertyRow>(
        `SELECT * FROM properties p WHERE ($1::text IS NULL OR p.owner_id = $1) ORDER BY ${PROPERTY_ORDER}`,
        [ownerId ?? null],
      )).map(toProperty),
    async getProperty(id) {
      const row = await one(id);
      return row && toProperty(row);
    },
    // Calendars and their reservations go with it (ON DELETE CASCADE).
    removeProperty: async (id) => (await db.run("DELETE FROM properties WHERE id = $1", [id])) > 0,
    async setPropertyFeedToken(id, feedToken) {
      await setFeedToken(feedToken, id);
    },
    async getPropertyByFeedToken(feedToken) {
      const [row] = await db.query<PropertyRow>("SELECT * FROM properties WHERE feed_token = $1", [feedToken]);
      return row && toProperty(row);
    },
    async propertyFeedToken(id, options = {}) {
      const token = randomBase62(FEED_TOKEN_LENGTH);
      if (options.rotate) await setFeedToken(token, id);
      // Only where none exists yet: two commands asking for the first token at once both get the same one.
      else await db.run("UPDATE properties SET feed_token = $1 WHERE id = $2 AND feed_token IS NULL", [token, id]);
      return (await one(id))?.feed_token ?? undefined;
    },
  };
}
