// The secrets of the private feeds (CONTRACT §18): cleaning feeds and the owner's calendar, on SQLite.
import type Database from "better-sqlite3";
import { randomBase62 } from "../../ids.js";
import { FEED_SECRET_COLUMNS, FEED_SECRET_LENGTH, OWNER_CALENDAR_COLUMNS, ownerCalendarRow, type OwnerCalendarDbRow } from "../feed-secret-columns.js";
import type { Store } from "../types.js";

export type FeedSecretQueries = Pick<Store, "feedSecret" | "findFeedSecret" | "ownerCalendarReservations">;

/** The private feeds' secrets of one database. */
export function feedSecretQueries(db: Database.Database): FeedSecretQueries {
  const calendarRows = db.prepare<[string, string], OwnerCalendarDbRow>(
    `SELECT ${OWNER_CALENDAR_COLUMNS} FROM reservations r
     JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id
     WHERE p.owner_id = ? AND r.status = 'active' AND r.echo_of IS NULL AND r.departure >= ?`,
  );
  return {
    ownerCalendarReservations: async (ownerId, departingFrom) => calendarRows.all(ownerId, departingFrom).map(ownerCalendarRow),
    async feedSecret(feed, id, action) {
      const { table, column } = FEED_SECRET_COLUMNS[feed];
      if (action === "revoke") db.prepare(`UPDATE ${table} SET ${column} = NULL WHERE id = ?`).run(id);
      else if (action === "rotate") db.prepare(`UPDATE ${table} SET ${column} = ? WHERE id = ?`).run(randomBase62(FEED_SECRET_LENGTH), id);
      // Only where none exists yet: two askers of the first secret both get the same one.
      else if (action === "make") db.prepare(`UPDATE ${table} SET ${column} = ? WHERE id = ? AND ${column} IS NULL`).run(randomBase62(FEED_SECRET_LENGTH), id);
      const row = db.prepare(`SELECT ${column} AS token FROM ${table} WHERE id = ?`).get(id) as { token: string | null } | undefined;
      return row?.token ?? null;
    },
    async findFeedSecret(feed, token) {
      const { table, column } = FEED_SECRET_COLUMNS[feed];
      const row = db.prepare(`SELECT id FROM ${table} WHERE ${column} = ?`).get(token) as { id: string } | undefined;
      return row?.id;
    },
  };
}
