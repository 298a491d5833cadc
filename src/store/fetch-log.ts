// The outbound fetch log as every store keeps it (CONTRACT §8, echoes): one record per URL and distinct
// body in a row, its nights encoded compactly, pruned alike by SQLite and PostgreSQL.
import type { OutboundFetchRecord, ServedNights } from "../engine/echoes.js";
import type { CalendarSource } from "../types.js";

/** Records kept per (property, exclude set): echo detection reads only the newest before a sync; the rest is for people. */
export const FETCH_LOG_KEEP_PER_URL = 5;

/** A URL not fetched for this many days is forgotten (its channel stopped importing it long ago). */
export const FETCH_LOG_MAX_AGE_DAYS = 400;

/** The stored key of an exclude set: its sources sorted and comma-separated, "" for none. */
export function excludeKey(sources: readonly CalendarSource[]): string {
  return [...new Set(sources)].sort().join(",");
}

/** The sources of a stored exclude key. */
export function excludeSources(key: string): CalendarSource[] {
  return key === "" ? [] : (key.split(",") as CalendarSource[]);
}

/** Served nights as stored: `[[reservationId, arrival, departure], …]` (about 45 bytes an event). */
export function encodeNights(nights: readonly ServedNights[]): string {
  return JSON.stringify(nights.map((n) => [n.reservationId, n.arrival, n.departure]));
}

/** The served nights of a stored record. */
export function decodeNights(text: string): ServedNights[] {
  return (JSON.parse(text) as Array<[string, string, string]>).map(([reservationId, arrival, departure]) => ({
    reservationId,
    arrival,
    departure,
  }));
}

/** An `outbound_fetches` row as both stores read it. */
export interface FetchRow { exclude: string; first_fetched_at: string; last_fetched_at: string; fetches: number; nights: string }

/** The columns of a `FetchRow`. */
export const FETCH_COLUMNS = "exclude, first_fetched_at, last_fetched_at, fetches, nights";

/** A stored record as the engine reads it. */
export function toFetchRecord(row: FetchRow): OutboundFetchRecord {
  return {
    exclude: excludeSources(row.exclude),
    firstFetchedAt: row.first_fetched_at,
    lastFetchedAt: row.last_fetched_at,
    fetches: row.fetches,
    nights: decodeNights(row.nights),
  };
}
