// The outbound fetch log (CONTRACT §8, echoes): what each URL of a property's feed served, and when.
import type Database from "better-sqlite3";
import { encodeNights, excludeKey, FETCH_COLUMNS, FETCH_LOG_KEEP_PER_URL, FETCH_LOG_MAX_AGE_DAYS, toFetchRecord, type FetchRow } from "../fetch-log.js";
import { CHANNEL_READS_KEEP_MS, PRUNE_EVERY_READS, readSource, USER_AGENT_MAX } from "../channel-types.js";
import type { OutboundFetch, Store } from "../types.js";

export type OutboundFetchQueries = Pick<Store, "recordOutboundFetch" | "propertyOutboundFetches">;

/** Prepares the fetch log statements of one database. */
export function outboundFetchQueries(db: Database.Database): OutboundFetchQueries {
  const last = db.prepare<[string, string], { id: number; etag: string }>(
    "SELECT id, etag FROM outbound_fetches WHERE property_id = ? AND exclude = ? ORDER BY id DESC LIMIT 1",
  );
  // max(): a fetch answered by another process may commit after a later one.
  const touch = db.prepare<[string, number]>(
    "UPDATE outbound_fetches SET last_fetched_at = max(last_fetched_at, ?), fetches = fetches + 1 WHERE id = ?",
  );
  // Nothing when the property was removed meanwhile (its feed answered just before).
  const insert = db.prepare<[string, string, string, string, string, string, string]>(
    `INSERT INTO outbound_fetches (property_id, exclude, etag, first_fetched_at, last_fetched_at, fetches, nights)
     SELECT ?, ?, ?, ?, ?, 1, ? WHERE EXISTS (SELECT 1 FROM properties WHERE id = ?)`,
  );
  const pruneUrl = db.prepare<[string, string, string, string, number]>(
    `DELETE FROM outbound_fetches WHERE property_id = ? AND exclude = ? AND id NOT IN
     (SELECT id FROM outbound_fetches WHERE property_id = ? AND exclude = ? ORDER BY id DESC LIMIT ?)`,
  );
  const pruneOld = db.prepare<[string, string]>("DELETE FROM outbound_fetches WHERE property_id = ? AND last_fetched_at < ?");
  const list = db.prepare<[string], FetchRow>(`SELECT ${FETCH_COLUMNS} FROM outbound_fetches WHERE property_id = ? ORDER BY id`);

  // A read of S's link counts only while the property has a calendar of S (CONTRACT §17); the link row's
  // times only move forward, as reads answered by other processes may commit out of order.
  const readLink = db.prepare<[string, string, string, string, string | null, string, string]>(
    `INSERT INTO channel_links (property_id, source, first_read_at, last_read_at, user_agent)
     SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM calendars WHERE property_id = ? AND source = ?)
     ON CONFLICT (property_id, source) DO UPDATE SET
       first_read_at = CASE WHEN first_read_at IS NULL OR excluded.first_read_at < first_read_at THEN excluded.first_read_at ELSE first_read_at END,
       user_agent = CASE WHEN last_read_at IS NULL OR excluded.last_read_at >= last_read_at THEN excluded.user_agent ELSE user_agent END,
       last_read_at = CASE WHEN last_read_at IS NULL OR excluded.last_read_at > last_read_at THEN excluded.last_read_at ELSE last_read_at END`,
  );
  const readTime = db.prepare<[string, string, string]>("INSERT INTO channel_reads (property_id, source, read_at) VALUES (?, ?, ?)");
  const pruneReads = db.prepare<[string, string, string]>("DELETE FROM channel_reads WHERE property_id = ? AND source = ? AND read_at < ?");

  let reads = 0;
  const record = db.transaction(({ propertyId, exclude, etag, nights, at, userAgent = null }: OutboundFetch) => {
    const key = excludeKey(exclude);
    const time = at.toISOString();
    const source = readSource(exclude);
    if (source !== null && readLink.run(propertyId, source, time, time, userAgent?.slice(0, USER_AGENT_MAX) ?? null, propertyId, source).changes > 0) {
      readTime.run(propertyId, source, time);
      // Read times older than 7 days go now and then, not on every read: a read stays two small writes.
      if (++reads % PRUNE_EVERY_READS === 0) pruneReads.run(propertyId, source, new Date(at.getTime() - CHANNEL_READS_KEEP_MS).toISOString());
    }
    if (nights === null) return;
    const previous = last.get(propertyId, key);
    // The same body again (a 304 too): one small update, however often the channel polls.
    if (previous?.etag === etag) return void touch.run(time, previous.id);
    insert.run(propertyId, key, etag, time, time, encodeNights(nights), propertyId);
    pruneUrl.run(propertyId, key, propertyId, key, FETCH_LOG_KEEP_PER_URL);
    pruneOld.run(propertyId, new Date(at.getTime() - FETCH_LOG_MAX_AGE_DAYS * 86_400_000).toISOString());
  });

  return {
    // IMMEDIATE: two fetches of one URL at once must not both read the same last record and insert twice.
    recordOutboundFetch: async (fetch) => record.immediate(fetch),
    async propertyOutboundFetches(propertyId) {
      return list.all(propertyId).map(toFetchRecord);
    },
  };
}
