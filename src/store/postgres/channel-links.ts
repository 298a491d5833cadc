// Channel links (CONTRACT §17) on PostgreSQL: each link's read state and read times, as every instance recorded them.
import { toLink, type LinkRow } from "../channel-rows.js";
import { READ_TIMES_FOR_INTERVAL, type ChannelQueries, type ChannelReservation } from "../channel-types.js";
import type { WebhookEvent } from "../../types.js";
import { addToOutbox } from "./outbox.js";
import type { PgDatabase } from "./pool.js";

// Once per streak, across instances: the row's update is conditional, so of two checks at once one reports it.
const CLAIM_STALE = `
  INSERT INTO channel_links (property_id, source, stale_notified_at) VALUES ($1, $2, $3)
  ON CONFLICT (property_id, source) DO UPDATE SET stale_notified_at = excluded.stale_notified_at WHERE channel_links.stale_notified_at IS NULL`;
const END_STREAK = `
  UPDATE channel_links SET stale_notified_at = NULL
  WHERE property_id = $1 AND source = $2 AND stale_notified_at IS NOT NULL AND last_read_at > stale_notified_at`;
const CLAIM_NIGHT = "INSERT INTO channel_exposures (property_id, source, night, reported_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING";

/** The channel link queries of one database. */
export function channelLinkQueries(db: PgDatabase): ChannelQueries {
  return {
    channelLinks: (propertyId, since, until) =>
      db.transaction(async (sql) => {
        const links = await sql.query<LinkRow>("SELECT * FROM channel_links WHERE property_id = $1 ORDER BY source COLLATE \"C\"", [propertyId]);
        const window = [propertyId, since.toISOString(), until.toISOString()];
        // Per source, as SQLite: the count and the latest times, both from channel_reads' index.
        const counts = await sql.query<{ source: string; n: string }>(
          "SELECT source, count(*) AS n FROM channel_reads WHERE property_id = $1 AND read_at >= $2 AND read_at <= $3 GROUP BY source",
          window,
        );
        const latest = await sql.query<{ source: string; read_at: string }>(
          `SELECT source, read_at FROM (
             SELECT source, read_at, row_number() OVER (PARTITION BY source ORDER BY read_at DESC) AS k
             FROM channel_reads WHERE property_id = $1 AND read_at >= $2 AND read_at <= $3) recent
           WHERE k <= $4 ORDER BY read_at DESC`,
          [...window, READ_TIMES_FOR_INTERVAL],
        );
        return links.map((row) =>
          toLink(
            row,
            Number(counts.find((c) => c.source === row.source)?.n ?? 0),
            latest.filter((r) => r.source === row.source).map((r) => r.read_at),
          ),
        );
      }),
    recordChannelNotices: ({ ownerId, propertyId, notices, at, forgetBefore }) =>
      db.transaction(async (sql) => {
        const time = at.toISOString();
        const events: WebhookEvent[] = [];
        await sql.run("DELETE FROM channel_exposures WHERE property_id = $1 AND night < $2", [propertyId, forgetBefore]);
        for (const notice of notices) {
          if (notice.kind === "stale" && (await sql.run(CLAIM_STALE, [propertyId, notice.source, time])) > 0) events.push(notice.event);
          if (notice.kind === "recovered" && (await sql.run(END_STREAK, [propertyId, notice.source])) > 0) events.push(notice.event);
          if (notice.kind === "exposed") {
            const fresh: string[] = [];
            for (const night of notice.nights) if ((await sql.run(CLAIM_NIGHT, [propertyId, notice.source, night, time])) > 0) fresh.push(night);
            if (fresh.length > 0) events.push(notice.event(fresh));
          }
        }
        await addToOutbox(sql, ownerId, events);
        return events.length;
      }),
    channelReservations: (propertyId) =>
      db.query<ChannelReservation>(
        `SELECT r.id, c.source, r.arrival, r.departure, r.kind, r.status, r.echo_of AS "echoOf", r.created_at AS "createdAt"
         FROM reservations r JOIN calendars c ON c.id = r.calendar_id WHERE c.property_id = $1 AND r.status = 'active'`,
        [propertyId],
      ),
  };
}
