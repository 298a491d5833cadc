// The outbound fetch log (CONTRACT §8, echoes) on PostgreSQL: what each URL of a property's feed served, and
// when, written by whichever instance answered the fetch.
import { encodeNights, excludeKey, FETCH_COLUMNS, FETCH_LOG_KEEP_PER_URL, FETCH_LOG_MAX_AGE_DAYS, toFetchRecord, type FetchRow } from "../fetch-log.js";
import type { PgDatabase } from "./pool.js";
import { CHANNEL_READS_KEEP_MS, readSource, USER_AGENT_MAX } from "../channel-types.js";
import type { OutboundFetch, Store } from "../types.js";

export type OutboundFetchQueries = Pick<Store, "recordOutboundFetch" | "propertyOutboundFetches">;

// The property stays while its fetch is recorded (KEY SHARE, as a sync's write takes it); none when removed meanwhile.
const PROPERTY = "SELECT 1 FROM properties WHERE id = $1 FOR KEY SHARE";
// One URL (property and exclude set) at a time across instances: "calf" and the URL's hash. Two fetches of one
// URL at once must not both read the same last record and insert twice; other URLs go on beside it.
const URL_LOCK = "SELECT pg_advisory_xact_lock(1667329126, hashtext($1::text || ' ' || $2::text))";
const LAST = `SELECT id, etag FROM outbound_fetches WHERE property_id = $1 AND exclude = $2 ORDER BY id DESC LIMIT 1`;
// GREATEST: a fetch answered by another instance may commit after a later one.
const TOUCH = "UPDATE outbound_fetches SET last_fetched_at = GREATEST(last_fetched_at, $1), fetches = fetches + 1 WHERE id = $2";
const INSERT = `
  INSERT INTO outbound_fetches (property_id, exclude, etag, first_fetched_at, last_fetched_at, fetches, nights)
  VALUES ($1, $2, $3, $4, $4, 1, $5)`;
const PRUNE_URL = `
  DELETE FROM outbound_fetches WHERE property_id = $1 AND exclude = $2 AND id NOT IN
  (SELECT id FROM outbound_fetches WHERE property_id = $1 AND exclude = $2 ORDER BY id DESC LIMIT $3)`;
const PRUNE_OLD = "DELETE FROM outbound_fetches WHERE property_id = $1 AND last_fetched_at < $2";

// A read of S's link counts only while the property has a calendar of S (CONTRACT §17); the link's times only
// move forward, as reads answered by other instances may commit out of order. One statement: reads stay cheap.
const READ_LINK = `
  WITH link AS (
    INSERT INTO channel_links (property_id, source, first_read_at, last_read_at, user_agent)
    SELECT $1, $2, $3, $3, $4 WHERE EXISTS (SELECT 1 FROM calendars WHERE property_id = $1 AND source = $2)
    ON CONFLICT (property_id, source) DO UPDATE SET
      first_read_at = LEAST(COALESCE(channel_links.first_read_at, excluded.first_read_at), excluded.first_read_at),
      user_agent = CASE WHEN channel_links.last_read_at IS NULL OR excluded.last_read_at >= channel_links.last_read_at
        THEN excluded.user_agent ELSE channel_links.user_agent END,
      last_read_at = GREATEST(COALESCE(channel_links.last_read_at, excluded.last_read_at), excluded.last_read_at)
    RETURNING 1
  ), pruned AS (
    DELETE FROM channel_reads WHERE property_id = $1 AND source = $2 AND read_at < $5 AND EXISTS (SELECT 1 FROM link)
  )
  INSERT INTO channel_reads (property_id, source, read_at) SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM link)`;

/** The fetch log queries of one database. */
export function outboundFetchQueries(db: PgDatabase): OutboundFetchQueries {
  return {
    recordOutboundFetch: ({ propertyId, exclude, etag, nights, at, userAgent = null }: OutboundFetch) =>
      db.transaction(async (sql) => {
        if ((await sql.query(PROPERTY, [propertyId])).length === 0) return;
        const source = readSource(exclude);
        if (source !== null) {
          const forgetBefore = new Date(at.getTime() - CHANNEL_READS_KEEP_MS).toISOString();
          await sql.run(READ_LINK, [propertyId, source, at.toISOString(), userAgent?.slice(0, USER_AGENT_MAX) ?? null, forgetBefore]);
        }
        if (nights === null) return;
        const key = excludeKey(exclude);
        await sql.query(URL_LOCK, [propertyId, key]);
        const time = at.toISOString();
        const [previous] = await sql.query<{ id: number; etag: string }>(LAST, [propertyId, key]);
        // The same body again (a 304 too): one small update, however often the channel polls. A record another
        // URL's pruning just removed (unfetched for 400 days) starts afresh below.
        if (previous?.etag === etag && (await sql.run(TOUCH, [time, previous.id])) > 0) return;
        await sql.run(INSERT, [propertyId, key, etag, time, encodeNights(nights)]);
        await sql.run(PRUNE_URL, [propertyId, key, FETCH_LOG_KEEP_PER_URL]);
        await sql.run(PRUNE_OLD, [propertyId, new Date(at.getTime() - FETCH_LOG_MAX_AGE_DAYS * 86_400_000).toISOString()]);
      }),
    async propertyOutboundFetches(propertyId) {
      const rows = await db.query<FetchRow>(
        `SELECT ${FETCH_COLUMNS} FROM outbound_fetches WHERE property_id = $1 ORDER BY id`,
        [propertyId],
      );
      return rows.map(toFetchRecord);
    },
  };
}
