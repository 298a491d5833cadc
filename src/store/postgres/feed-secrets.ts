// The secrets of the private feeds (CONTRACT §18): cleaning feeds and the owner's calendar, on PostgreSQL.
import { randomBase62 } from "../../ids.js";
import { FEED_SECRET_COLUMNS, FEED_SECRET_LENGTH, OWNER_CALENDAR_COLUMNS, ownerCalendarRow, type OwnerCalendarDbRow } from "../feed-secret-columns.js";
import type { Store } from "../types.js";
import type { PgDatabase } from "./pool.js";

export type FeedSecretQueries = Pick<Store, "feedSecret" | "findFeedSecret" | "ownerCalendarReservations">;

/** The private feeds' secrets of one database. */
export function feedSecretQueries(db: PgDatabase): FeedSecretQueries {
  return {
    ownerCalendarReservations: async (ownerId, departingFrom) =>
      (
        await db.query<OwnerCalendarDbRow>(
          `SELECT ${OWNER_CALENDAR_COLUMNS} FROM reservations r
           JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id
           WHERE p.owner_id = $1 AND r.status = 'active' AND r.echo_of IS NULL AND r.departure COLLATE "C" >= $2`,
          [ownerId, departingFrom],
        )
      ).map(ownerCalendarRow),
    async feedSecret(feed, id, action) {
      const { table, column } = FEED_SECRET_COLUMNS[feed];
      if (action === "revoke") await db.run(`UPDATE ${table} SET ${column} = NULL WHERE id = $1`, [id]);
      else if (action === "rotate") await db.run(`UPDATE ${table} SET ${column} = $1 WHERE id = $2`, [randomBase62(FEED_SECRET_LENGTH), id]);
      // Only where none exists yet: two askers of the first secret both get the same one.
      else if (action === "make") await db.run(`UPDATE ${table} SET ${column} = $1 WHERE id = $2 AND ${column} IS NULL`, [randomBase62(FEED_SECRET_LENGTH), id]);
      const [row] = await db.query<{ token: string | null }>(`SELECT ${column} AS token FROM ${table} WHERE id = $1`, [id]);
      return row?.token ?? null;
    },
    async findFeedSecret(feed, token) {
      const { table, column } = FEED_SECRET_COLUMNS[feed];
      const [row] = await db.query<{ id: string }>(`SELECT id FROM ${table} WHERE ${column} = $1`, [token]);
      return row?.id;
    },
  };
}
