// Properties: an owner's rentals, each with its calendars and an optional outbound feed token.
import type Database from "better-sqlite3";
import { stayNights } from "../../engine/nights.js";
import { newId, randomBase62 } from "../../ids.js";
import { toProperty, type PropertyRow } from "./rows.js";
import type { PropertyChanges, Store } from "../types.js";
import { settingsChange } from "../property-settings-row.js";

/**
 * The one order of properties everywhere (`p` = properties): by name as people read it, then
 * creation (rowid), so that results, listings and reservations line up and stay stable between runs.
 */
export const PROPERTY_ORDER = "p.name COLLATE NOCASE, p.name, p.rowid";

export type PropertyQueries = Pick<Store,
  "createProperty" | "updateProperty" | "listProperties" | "propertiesAfter" | "getProperty" | "removeProperty" | "setPropertyFeedToken" |
  "getPropertyByFeedToken" | "propertyFeedToken">;

/**
 * Stamps the outbound feed of calendar `?2`'s property as changed at `?1`. Run inside the writing
 * transaction, with the clock read there, so a change becomes visible no earlier than its stamp.
 */
export const TOUCH_PROPERTY_FEED = "UPDATE properties SET feed_changed_at = ? WHERE id = (SELECT property_id FROM calendars WHERE id = ?)";

/** Length of a feed token: 32 base62 characters are over 190 bits, like an API token. */
export const FEED_TOKEN_LENGTH = 32;

/** Prepares the property statements of one database. */
export function propertyQueries(db: Database.Database): PropertyQueries {
  const insert = db.prepare<[string, string, string, string | null, string]>(
    "INSERT INTO properties (id, owner_id, name, time_zone, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  const one = db.prepare<[string], PropertyRow>("SELECT * FROM properties WHERE id = ?");
  const all = db.prepare<[string | null, string | null], PropertyRow>(
    `SELECT * FROM properties p WHERE (? IS NULL OR p.owner_id = ?) ORDER BY ${PROPERTY_ORDER}`,
  );
  // '' sorts before every id: the first page.
  const after = db.prepare<[string, number], PropertyRow>("SELECT * FROM properties WHERE id > ? ORDER BY id LIMIT ?");
  // Calendars and their reservations go with it (ON DELETE CASCADE).
  const remove = db.prepare<[string]>("DELETE FROM properties WHERE id = ?");
  const setFeedToken = db.prepare<[string | null, string]>("UPDATE properties SET feed_token = ? WHERE id = ?");
  const byFeedToken = db.prepare<[string], PropertyRow>("SELECT * FROM properties WHERE feed_token = ?");
  // Only where none exists yet: two commands asking for the first token at once both get the same one.
  const firstFeedToken = db.prepare<[string, string]>(
    "UPDATE properties SET feed_token = ? WHERE id = ? AND feed_token IS NULL",
  );

  const update = propertyUpdate(db, one);

  return {
    async createProperty(ownerId, name, timeZone = null) {
      const id = newId("prp");
      insert.run(id, ownerId, name, timeZone, new Date().toISOString());
      return toProperty(one.get(id)!);
    },
    updateProperty: async (id, changes) => update(id, changes),
    listProperties: async (ownerId) => all.all(ownerId ?? null, ownerId ?? null).map(toProperty),
    propertiesAfter: async (afterId, limit) => after.all(afterId ?? "", limit).map(toProperty),
    async getProperty(id) {
      const row = one.get(id);
      return row && toProperty(row);
    },
    removeProperty: async (id) => remove.run(id).changes > 0,
    async setPropertyFeedToken(id, feedToken) {
      setFeedToken.run(feedToken, id);
    },
    async getPropertyByFeedToken(feedToken) {
      const row = byFeedToken.get(feedToken);
      return row && toProperty(row);
    },
    async propertyFeedToken(id, options = {}) {
      const token = randomBase62(FEED_TOKEN_LENGTH);
      if (options.rotate) setFeedToken.run(token, id);
      else firstFeedToken.run(token, id);
      return one.get(id)?.feed_token ?? undefined;
    },
  };
}

type ReservationNightsRow = { id: string; start: string; end: string; arrival: string; departure: string; event_zone: string | null };

/**
 * `updateProperty` in one transaction: the new name or zone, every reservation's nights recomputed in
 * the new zone (CONTRACT §8), and the outbound feed stamped as changed (its name and nights are in it).
 */
function propertyUpdate(db: Database.Database, one: Database.Statement<[string], PropertyRow>) {
  const write = db.prepare<[string, string | null, string, string]>(
    "UPDATE properties SET name = ?, time_zone = ?, feed_changed_at = ? WHERE id = ?",
  );
  // Buffer nights change what every channel link exports, so they stamp the feed too; times and cleaners do not.
  const writeSettings = db.prepare<[string, string, number, string, number, string, string]>(
    `UPDATE properties SET check_in_time = ?, check_out_time = ?, buffer_nights = ?, cleaner_emails = ?,
     feed_changed_at = CASE WHEN ? = 1 THEN ? ELSE feed_changed_at END WHERE id = ?`,
  );
  const nights = db.prepare<[string], ReservationNightsRow>(
    `SELECT r.id, r.start, r."end", r.arrival, r.departure, r.event_zone FROM reservations r
     JOIN calendars c ON c.id = r.calendar_id WHERE c.property_id = ?`,
  );
  const moveNights = db.prepare<[string, string, string]>("UPDATE reservations SET arrival = ?, departure = ? WHERE id = ?");
  const update = db.transaction((id: string, changes: PropertyChanges) => {
    const before = one.get(id);
    if (!before) return undefined;
    const name = changes.name ?? before.name;
    const timeZone = changes.timeZone === undefined ? before.time_zone : changes.timeZone;
    const settings = settingsChange(before, changes);
    if (settings) writeSettings.run(...settings, new Date().toISOString(), id);
    if (name === before.name && timeZone === before.time_zone) return { property: toProperty(one.get(id)!), nightsChanged: 0 };
    let nightsChanged = 0;
    if (timeZone !== before.time_zone) {
      for (const row of nights.all(id)) {
        const { arrival, departure } = stayNights(row.start, row.end, { property: timeZone, event: row.event_zone });
        if (arrival === row.arrival && departure === row.departure) continue;
        moveNights.run(arrival, departure, row.id);
        nightsChanged++;
      }
    }
    // Clock read inside the transaction, like every feed stamp, so the change is never older than its date.
    write.run(name, timeZone, new Date().toISOString(), id);
    return { property: toProperty(one.get(id)!), nightsChanged };
  });
  // IMMEDIATE takes the write lock before reading the rows, so a sync committing meanwhile waits its
  // turn instead of leaving rows dated in the old zone (or failing this update on a stale snapshot).
  return (id: string, changes: PropertyChanges) => update.immediate(id, changes);
}
