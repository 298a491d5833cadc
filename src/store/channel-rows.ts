// Channel link rows as both dialects read them (CONTRACT §17).
import type { ChannelLinkRow } from "./channel-types.js";
import type { CalendarSource } from "../types.js";

/** A `channel_links` row. */
export interface LinkRow { source: string; first_read_at: string | null; last_read_at: string | null; user_agent: string | null; stale_notified_at: string | null }

/** Deletes a calendar's link state when no other calendar of its property has its source (run before the calendar goes). */
export const FORGET_LINK = (table: string, p: (n: number) => string) =>
  `DELETE FROM ${table} WHERE (property_id, source) IN (SELECT property_id, source FROM calendars WHERE id = ${p(1)})
   AND NOT EXISTS (SELECT 1 FROM calendars o, calendars c WHERE c.id = ${p(1)} AND o.property_id = c.property_id AND o.source = c.source AND o.id <> c.id)`;

/** One link row with its read count and latest read times, oldest first (shared with PostgreSQL). */
export function toLink(row: LinkRow, reads: number, latestFirst: readonly string[]): ChannelLinkRow {
  return {
    source: row.source as CalendarSource,
    firstReadAt: row.first_read_at,
    lastReadAt: row.last_read_at,
    userAgent: row.user_agent,
    staleNotifiedAt: row.stale_notified_at,
    reads,
    readTimes: [...latestFirst].reverse(),
  };
}
