// The outbound fetch log (CONTRACT §8, echoes): what each URL of a property's feed served, and when.
import type Database from "better-sqlite3";
import { decodeNights, encodeNights, excludeKey, excludeSources, FETCH_LOG_KEEP_PER_URL, FETCH_LOG_MAX_AGE_DAYS } from "../fetch-log.js";
import type { OutboundFetch, Store } from "../types.js";

export type OutboundFetchQueries = Pick<Store, "recordOutboundFetch" | "propertyOutboundFetches">;

interface FetchRow { exclude: string; first_fetched_at: string; last_fetched_at: string; fetches: number; nights: string }

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
  const list = db.prepare<[string], FetchRow>(
    "SELECT exclude, first_fetched_at, last_fetched_at, fetches, nights FROM outbound_fetches WHERE property_id = ? ORDER BY id",
  );

  const record = db.transaction(({ propertyId, exclude, etag, nights, at }: OutboundFetch) => {
    const key = excludeKey(exclude);
    const time = at.toISOString();
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
      return list.all(propertyId).map((row) => ({
        exclude: excludeSources(row.exclude),
        firstFetchedAt: row.first_fetched_at,
        lastFetchedAt: row.last_fetched_at,
        fetches: row.fetches,
        nights: decodeNights(row.nights),
      }));
    },
  };
}
