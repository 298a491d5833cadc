// Channel links (CONTRACT §17) on SQLite: each link's read state and read times, and the reservations exposed nights name.
import type Database from "better-sqlite3";
import { emptyChannelInputs, READ_TIMES_FOR_INTERVAL, type ChannelQueries, type ChannelReservation } from "../channel-types.js";
import { toLink, type LinkRow } from "../channel-rows.js";
import { decodeNights } from "../fetch-log.js";
import type { CalendarSource } from "../../types.js";
import type { WebhookEvent } from "../../types.js";
import { outboxWriter } from "./outbox.js";

/** Prepares the channel link queries of one database. */
export function channelLinkQueries(db: Database.Database): ChannelQueries {
  const links = db.prepare<[string], LinkRow>("SELECT * FROM channel_links WHERE property_id = ? ORDER BY source");
  // Both served by channel_reads_link (property_id, source, read_at): a count, and the latest times walked backwards.
  const readCount = db.prepare<[string, string, string, string], number>(
    "SELECT count(*) FROM channel_reads WHERE property_id = ? AND source = ? AND read_at >= ? AND read_at <= ?",
  ).pluck();
  const latestReads = db.prepare<[string, string, string, string, number], string>(
    "SELECT read_at FROM channel_reads WHERE property_id = ? AND source = ? AND read_at >= ? AND read_at <= ? ORDER BY read_at DESC LIMIT ?",
  ).pluck();
  const reservations = db.prepare<[string], ChannelReservation>(
    `SELECT r.id, c.source, r.arrival, r.departure, r.kind, r.status, r.echo_of AS echoOf, r.created_at AS createdAt
     FROM reservations r JOIN calendars c ON c.id = r.calendar_id WHERE c.property_id = ? AND r.status = 'active'`,
  );
  const calendars = db.prepare<[string], { source: CalendarSource; createdAt: string }>(
    "SELECT source, created_at AS createdAt FROM calendars WHERE property_id = ? AND source <> 'direct'",
  );
  const reported = db.prepare<[string], { source: CalendarSource; night: string }>("SELECT source, night FROM channel_exposures WHERE property_id = ?");
  // The newest record of each single-source URL: SQLite takes a bare column from the row of max(id).
  const lastServed = db.prepare<[string], { source: CalendarSource; nights: string }>(
    `SELECT exclude AS source, nights, max(id) FROM outbound_fetches
     WHERE property_id = ? AND exclude <> '' AND instr(exclude, ',') = 0 GROUP BY exclude`,
  );
  // Once per streak: set only while no streak is reported (a never-read link gets its row here).
  const claimStale = db.prepare<[string, string, string]>(
    `INSERT INTO channel_links (property_id, source, stale_notified_at) VALUES (?, ?, ?)
     ON CONFLICT (property_id, source) DO UPDATE SET stale_notified_at = excluded.stale_notified_at WHERE channel_links.stale_notified_at IS NULL`,
  );
  const endStreak = db.prepare<[string, string]>(
    `UPDATE channel_links SET stale_notified_at = NULL
     WHERE property_id = ? AND source = ? AND stale_notified_at IS NOT NULL AND last_read_at > stale_notified_at`,
  );
  const claimNight = db.prepare<[string, string, string, string]>(
    "INSERT INTO channel_exposures (property_id, source, night, reported_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
  );
  const forgetNights = db.prepare<[string, string]>("DELETE FROM channel_exposures WHERE property_id = ? AND night < ?");
  const outbox = outboxWriter(db);
  const report = db.transaction(({ ownerId, propertyId, notices, at, forgetBefore }: Parameters<ChannelQueries["recordChannelNotices"]>[0]) => {
    const time = at.toISOString();
    const events: WebhookEvent[] = [];
    forgetNights.run(propertyId, forgetBefore);
    for (const notice of notices) {
      if (notice.kind === "stale" && claimStale.run(propertyId, notice.source, time).changes > 0) events.push(notice.event);
      if (notice.kind === "recovered" && endStreak.run(propertyId, notice.source).changes > 0) events.push(notice.event);
      if (notice.kind === "exposed") {
        const fresh = notice.nights.filter((night) => claimNight.run(propertyId, notice.source, night, time).changes > 0);
        if (fresh.length > 0) events.push(notice.event(fresh));
      }
    }
    outbox.add(ownerId, events);
    return events.length;
  });
  // In-process statements cost no round trip: a page is read property by property, in one snapshot.
  const inputs = db.transaction((propertyIds: readonly string[], since: string, until: string) => {
    const all = emptyChannelInputs(propertyIds);
    for (const [id, input] of all) {
      input.calendars = calendars.all(id);
      input.links = links.all(id).map((row) =>
        toLink(row, readCount.get(id, row.source, since, until)!, latestReads.all(id, row.source, since, until, READ_TIMES_FOR_INTERVAL)),
      );
      input.reservations = reservations.all(id);
      input.lastServed = lastServed.all(id).map((row) => ({ source: row.source, nights: decodeNights(row.nights) }));
      input.reportedNights = reported.all(id);
    }
    return all;
  });
  return {
    channelInputs: async (propertyIds, since, until) => inputs(propertyIds, since.toISOString(), until.toISOString()),
    recordChannelNotices: async (input) => report.immediate(input),
  };
}
