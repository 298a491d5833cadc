// Properties: an owner's rentals, each with its calendars, an optional outbound feed token and time zone.
import { stayNights } from "../../engine/nights.js";
import { newId, randomBase62 } from "../../ids.js";
import { FEED_TOKEN_LENGTH } from "../sqlite/properties.js";
import type { PgDatabase, Sql } from "./pool.js";
import { toProperty, type PropertyRow } from "./rows.js";
import { settingsChange } from "../property-settings-row.js";
import type { PropertyChanges, Store } from "../types.js";

/**
 * The one order of properties everywhere (`p` = properties), exactly SQLite's: the name with ASCII
 * letters folded (SQLite's NOCASE, which leaves other letters alone), then the name, both by bytes
 * (COLLATE "C", not the database's locale), then creation (seq, SQLite's rowid).
 */
export const PROPERTY_ORDER =
  `translate(p.name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') COLLATE "C", p.name COLLATE "C", p.seq`;

export type PropertyQueries = Pick<Store,
  "createProperty" | "updateProperty" | "listProperties" | "propertiesAfter" | "getProperty" | "removeProperty" | "setPropertyFeedToken" |
  "getPropertyByFeedToken" | "propertyFeedToken">;

/**
 * Stamps the outbound feed of calendar `$2`'s property as changed at `$1`. Run inside the writing
 * transaction, with the clock read there, so a change becomes visible no earlier than its stamp.
 */
export const TOUCH_PROPERTY_FEED =
  "UPDATE properties SET feed_changed_at = $1 WHERE id = (SELECT property_id FROM calendars WHERE id = $2)";

/** The property queries of one database. */
export function propertyQueries(db: PgDatabase): PropertyQueries {
  const one = async (id: string) => (await db.query<PropertyRow>("SELECT * FROM properties WHERE id = $1", [id]))[0];
  const setFeedToken = (token: string | null, id: string) =>
    db.run("UPDATE properties SET feed_token = $1 WHERE id = $2", [token, id]);

  return {
    async createProperty(ownerId, name, timeZone = null) {
      const [row] = await db.query<PropertyRow>(
        "INSERT INTO properties (id, owner_id, name, time_zone, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *",
        [newId("prp"), ownerId, name, timeZone, new Date().toISOString()],
      );
      return toProperty(row!);
    },
    updateProperty: (id, changes) => db.transaction((sql) => updateProperty(sql, id, changes)),
    listProperties: async (ownerId) =>
      (await db.query<PropertyRow>(
        `SELECT * FROM properties p WHERE ($1::text IS NULL OR p.owner_id = $1) ORDER BY ${PROPERTY_ORDER}`,
        [ownerId ?? null],
      )).map(toProperty),
    // The comparison and the order share the column's collation (and its primary key index): pages never overlap.
    propertiesAfter: async (afterId, limit) =>
      (await db.query<PropertyRow>("SELECT * FROM properties WHERE id > $1 ORDER BY id LIMIT $2", [afterId ?? "", limit])).map(toProperty),
    async getProperty(id) {
      const row = await one(id);
      return row && toProperty(row);
    },
    // Calendars and their reservations go with it (ON DELETE CASCADE).
    removeProperty: async (id) => (await db.run("DELETE FROM properties WHERE id = $1", [id])) > 0,
    async setPropertyFeedToken(id, feedToken) {
      await setFeedToken(feedToken, id);
    },
    async getPropertyByFeedToken(feedToken) {
      const [row] = await db.query<PropertyRow>("SELECT * FROM properties WHERE feed_token = $1", [feedToken]);
      return row && toProperty(row);
    },
    async propertyFeedToken(id, options = {}) {
      const token = randomBase62(FEED_TOKEN_LENGTH);
      if (options.rotate) await setFeedToken(token, id);
      // Only where none exists yet: two commands asking for the first token at once both get the same one.
      else await db.run("UPDATE properties SET feed_token = $1 WHERE id = $2 AND feed_token IS NULL", [token, id]);
      return (await one(id))?.feed_token ?? undefined;
    },
  };
}

type ReservationNightsRow = { id: string; start: string; end: string; arrival: string; departure: string; event_zone: string | null };

/**
 * `updateProperty` inside one transaction: the new name or zone, every reservation's nights recomputed in
 * the new zone (CONTRACT §8), and the outbound feed stamped as changed (its name and nights are in it).
 */
async function updateProperty(sql: Sql, id: string, changes: PropertyChanges) {
  // FOR UPDATE before reading the rows it recomputes: a sync writing this property's calendars holds
  // FOR KEY SHARE on the row (sync-port.ts), so one of the two waits for the other to commit and no
  // row is left dated in the old zone.
  const [before] = await sql.query<PropertyRow>("SELECT * FROM properties WHERE id = $1 FOR UPDATE", [id]);
  if (!before) return undefined;
  const name = changes.name ?? before.name;
  const timeZone = changes.timeZone === undefined ? before.time_zone : changes.timeZone;
  const settings = settingsChange(before, changes);
  if (settings) {
    // Buffer nights change what every channel link exports, so they stamp the feed too; times and cleaners do not.
    await sql.run(
      `UPDATE properties SET check_in_time = $1, check_out_time = $2, buffer_nights = $3, cleaner_emails = $4,
       feed_changed_at = CASE WHEN $5::int = 1 THEN $6 ELSE feed_changed_at END WHERE id = $7`,
      [...settings, new Date().toISOString(), id],
    );
  }
  if (name === before.name && timeZone === before.time_zone) {
    if (!settings) return { property: toProperty(before), nightsChanged: 0 };
    const [after] = await sql.query<PropertyRow>("SELECT * FROM properties WHERE id = $1", [id]);
    return { property: toProperty(after!), nightsChanged: 0 };
  }
  const moved: [string[], string[], string[]] = [[], [], []];
  if (timeZone !== before.time_zone) {
    const rows = await sql.query<ReservationNightsRow>(
      `SELECT r.id, r.start, r."end", r.arrival, r.departure, r.event_zone FROM reservations r
       JOIN calendars c ON c.id = r.calendar_id WHERE c.property_id = $1`,
      [id],
    );
    for (const row of rows) {
      const { arrival, departure } = stayNights(row.start, row.end, { property: timeZone, event: row.event_zone });
      if (arrival === row.arrival && departure === row.departure) continue;
      [row.id, arrival, departure].forEach((value, i) => moved[i]!.push(value));
    }
    // One statement for all of them, as the sync's writes.
    if (moved[0].length > 0) {
      await sql.run(
        `UPDATE reservations r SET arrival = t.arrival, departure = t.departure
         FROM unnest($1::text[], $2::text[], $3::text[]) AS t(id, arrival, departure) WHERE r.id = t.id`,
        moved,
      );
    }
  }
  // Clock read inside the transaction, like every feed stamp, so the change is never older than its date.
  const [after] = await sql.query<PropertyRow>(
    "UPDATE properties SET name = $1, time_zone = $2, feed_changed_at = $3 WHERE id = $4 RETURNING *",
    [name, timeZone, new Date().toISOString(), id],
  );
  return { property: toProperty(after!), nightsChanged: moved[0].length };
}
