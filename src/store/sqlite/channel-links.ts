// Channel links (CONTRACT §17) on SQLite: each link's read state and read times, and the reservations exposed nights name.
import type Database from "better-sqlite3";
import type { ChannelQueries, ChannelReservation } from "../channel-types.js";
import { toLink, type LinkRow } from "../channel-rows.js";

/** Prepares the channel link queries of one database. */
export function channelLinkQueries(db: Database.Database): ChannelQueries {
  const links = db.prepare<[string], LinkRow>("SELECT * FROM channel_links WHERE property_id = ? ORDER BY source");
  const reads = db.prepare<[string, string], { source: string; read_at: string }>(
    "SELECT source, read_at FROM channel_reads WHERE property_id = ? AND read_at >= ? ORDER BY read_at",
  );
  const reservations = db.prepare<[string], ChannelReservation>(
    `SELECT r.id, c.source, r.arrival, r.departure, r.kind, r.status, r.echo_of AS echoOf, r.created_at AS createdAt
     FROM reservations r JOIN calendars c ON c.id = r.calendar_id WHERE c.property_id = ? AND r.status = 'active'`,
  );
  const snapshot = db.transaction((propertyId: string, since: string) => ({ links: links.all(propertyId), reads: reads.all(propertyId, since) }));
  return {
    async channelLinks(propertyId, since) {
      const { links: rows, reads: times } = snapshot(propertyId, since.toISOString());
      return rows.map((row) => toLink(row, times));
    },
    channelReservations: async (propertyId) => reservations.all(propertyId),
  };
}
