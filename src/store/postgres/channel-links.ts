// Channel links (CONTRACT §17) on PostgreSQL: each link's read state and read times, as every instance recorded them.
import { toLink, type LinkRow } from "../channel-rows.js";
import { emptyChannelInputs, READ_TIMES_FOR_INTERVAL, type ChannelQueries, type ChannelReservation } from "../channel-types.js";
import { decodeNights } from "../fetch-log.js";
import type { CalendarSource, WebhookEvent } from "../../types.js";
import { addToOutbox } from "./outbox.js";
import type { PgDatabase } from "./pool.js";

// Once per streak, across instances: the row's update is conditional, so of two checks at once one reports it.
const CLAIM_STALE = `
  INSERT INTO channel_links (property_id, source, stale_notified_at) VALUES ($1, $2, $3)
  ON CONFLICT (property_id, source) DO UPDATE SET stale_notified_at = excluded.stale_notified_at WHERE channel_links.stale_notified_at IS NULL`;
const END_STREAK = `
  UPDATE channel_links SET stale_notified_at = NULL
  WHERE property_id = $1 AND source = $2 AND stale_notified_at IS NOT NULL AND last_read_at > stale_notified_at`;
// A page of properties in six statements, each by its property index. The reads: per link, the count in the
// window and the latest times (both from channel_reads_link); what each link last served, from outbound_fetches_url.
const PAGE_CALENDARS = `SELECT property_id, source, created_at AS "createdAt" FROM calendars WHERE property_id = ANY($1::text[]) AND source <> 'direct'`;
const PAGE_LINKS = "SELECT * FROM channel_links WHERE property_id = ANY($1::text[])";
const PAGE_READS = `
  SELECT property_id, source, read_at, n FROM (
    SELECT property_id, source, read_at, count(*) OVER link AS n, row_number() OVER (link ORDER BY read_at DESC) AS k
    FROM channel_reads WHERE property_id = ANY($1::text[]) AND read_at >= $2 AND read_at <= $3
    WINDOW link AS (PARTITION BY property_id, source)) recent
  WHERE k <= $4 ORDER BY read_at DESC`;
const PAGE_RESERVATIONS = `
  SELECT c.property_id, r.id, c.source, r.arrival, r.departure, r.kind, r.status, r.echo_of AS "echoOf", r.created_at AS "createdAt"
  FROM reservations r JOIN calendars c ON c.id = r.calendar_id WHERE c.property_id = ANY($1::text[]) AND r.status = 'active'`;
const PAGE_REPORTED = "SELECT property_id, source, night FROM channel_exposures WHERE property_id = ANY($1::text[])";
const PAGE_LAST_SERVED = `
  SELECT DISTINCT ON (property_id, exclude) property_id, exclude AS source, nights FROM outbound_fetches
  WHERE property_id = ANY($1::text[]) AND exclude <> '' AND strpos(exclude, ',') = 0
  ORDER BY property_id, exclude, id DESC`;

interface OfProperty { property_id: string }

const CLAIM_NIGHT = "INSERT INTO channel_exposures (property_id, source, night, reported_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING";

/** The channel link queries of one database. */
export function channelLinkQueries(db: PgDatabase): ChannelQueries {
  return {
    channelInputs: (propertyIds, since, until) =>
      db.transaction(async (sql) => {
        const all = emptyChannelInputs(propertyIds);
        const ids = [...all.keys()];
        const of = (row: OfProperty) => all.get(row.property_id)!;
        for (const row of await sql.query<OfProperty & { source: CalendarSource; createdAt: string }>(PAGE_CALENDARS, [ids])) {
          of(row).calendars.push({ source: row.source, createdAt: row.createdAt });
        }
        const reads = await sql.query<OfProperty & { source: string; read_at: string; n: string }>(PAGE_READS, [
          ids, since.toISOString(), until.toISOString(), READ_TIMES_FOR_INTERVAL,
        ]);
        const readsOf = new Map<string, { n: number; latest: string[] }>();
        for (const row of reads) {
          const key = `${row.property_id} ${row.source}`;
          const link = readsOf.get(key) ?? { n: Number(row.n), latest: [] };
          link.latest.push(row.read_at);
          readsOf.set(key, link);
        }
        for (const row of await sql.query<OfProperty & LinkRow>(PAGE_LINKS, [ids])) {
          const read = readsOf.get(`${row.property_id} ${row.source}`);
          of(row).links.push(toLink(row, read?.n ?? 0, read?.latest ?? []));
        }
        for (const { property_id, ...reservation } of await sql.query<OfProperty & ChannelReservation>(PAGE_RESERVATIONS, [ids])) {
          all.get(property_id)!.reservations.push(reservation);
        }
        for (const row of await sql.query<OfProperty & { source: CalendarSource; nights: string }>(PAGE_LAST_SERVED, [ids])) {
          of(row).lastServed.push({ source: row.source, nights: decodeNights(row.nights) });
        }
        for (const { property_id, ...night } of await sql.query<OfProperty & { source: CalendarSource; night: string }>(PAGE_REPORTED, [ids])) {
          all.get(property_id)!.reportedNights.push(night);
        }
        return all;
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
  };
}
