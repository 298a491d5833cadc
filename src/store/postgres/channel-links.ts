// Channel links (CONTRACT §17) on PostgreSQL: each link's read state and read times, as every instance recorded them.
import { toLink, type LinkRow } from "../channel-rows.js";
import type { ChannelQueries, ChannelReservation } from "../channel-types.js";
import type { PgDatabase } from "./pool.js";

/** The channel link queries of one database. */
export function channelLinkQueries(db: PgDatabase): ChannelQueries {
  return {
    channelLinks: (propertyId, since) =>
      db.transaction(async (sql) => {
        const links = await sql.query<LinkRow>("SELECT * FROM channel_links WHERE property_id = $1 ORDER BY source COLLATE \"C\"", [propertyId]);
        const reads = await sql.query<{ source: string; read_at: string }>(
          "SELECT source, read_at FROM channel_reads WHERE property_id = $1 AND read_at >= $2 ORDER BY read_at",
          [propertyId, since.toISOString()],
        );
        return links.map((row) => toLink(row, reads));
      }),
    channelReservations: (propertyId) =>
      db.query<ChannelReservation>(
        `SELECT r.id, c.source, r.arrival, r.departure, r.kind, r.status, r.echo_of AS "echoOf", r.created_at AS "createdAt"
         FROM reservations r JOIN calendars c ON c.id = r.calendar_id WHERE c.property_id = $1 AND r.status = 'active'`,
        [propertyId],
      ),
  };
}
