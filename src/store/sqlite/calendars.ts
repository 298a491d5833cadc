// Calendars: one feed URL of a property, with what its last sync left behind.
import type Database from "better-sqlite3";
import { calendarFilter } from "../calendar-filter.js";
import { FORGET_LINK } from "../channel-rows.js";
import { newId } from "../../ids.js";
import { PROPERTY_ORDER, TOUCH_PROPERTY_FEED } from "./properties.js";
import { toCalendar, type CalendarRow } from "./rows.js";
import type { Store } from "../types.js";

/** Calendars joined with their property (`c`, `p`), as both the admin and the sync queries read them. */
export const CALENDAR_SELECT = `
  SELECT c.*, p.owner_id, p.name AS property_name, p.time_zone AS property_time_zone
  FROM calendars c JOIN properties p ON p.id = c.property_id`;

/** Property order, then calendar creation (`seq` only grows). */
export const CALENDAR_ORDER = `${PROPERTY_ORDER}, c.seq`;

export type CalendarQueries = Pick<Store, "createCalendar" | "listCalendars" | "getCalendar" | "removeCalendar">;

/** Prepares the calendar statements of one database. */
export function calendarQueries(db: Database.Database): CalendarQueries {
  const insert = db.prepare<[string, string, string, string, string]>(
    "INSERT INTO calendars (id, property_id, url, source, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  const one = db.prepare<[string], CalendarRow>(`${CALENDAR_SELECT} WHERE c.id = ?`);
  // One statement per set of filters: `(? IS NULL OR c.property_id = ?)` kept SQLite from the property's index,
  // so listing one property's calendars read every calendar (the channel check, per property, went quadratic).
  const lists = new Map<string, Database.Statement<unknown[], CalendarRow>>();
  const listFor = (owner: boolean, property: boolean, direct: boolean) => {
    const key = `${owner}${property}${direct}`;
    let statement = lists.get(key);
    if (!statement) {
      statement = db.prepare<unknown[], CalendarRow>(`${CALENDAR_SELECT} WHERE ${calendarFilter({ owner, property, direct }, () => "?")} ORDER BY ${CALENDAR_ORDER}`);
      lists.set(key, statement);
    }
    return statement;
  };
  // Reservations go with it (ON DELETE CASCADE); the sync history keeps its rows, unlinked.
  const remove = db.prepare<[string]>("DELETE FROM calendars WHERE id = ?");
  // Its nights leave the property's outbound feed, whose Last-Modified must not go back in time.
  const touchProperty = db.prepare<[string, string]>(TOUCH_PROPERTY_FEED);
  // Removing a calendar removes its link's state (CONTRACT §17), unless another calendar of its source stays.
  const forgetLinks = ["channel_links", "channel_reads", "channel_exposures"].map((table) => db.prepare<[{ id: string }]>(FORGET_LINK(table, () => "@id")));
  const removeWhole = db.transaction((id: string) => {
    for (const forget of forgetLinks) forget.run({ id });
    touchProperty.run(new Date().toISOString(), id);
    return remove.run(id).changes > 0;
  });

  return {
    async createCalendar({ propertyId, url, source }) {
      const id = newId("cal");
      insert.run(id, propertyId, url, source, new Date().toISOString());
      return toCalendar(one.get(id)!);
    },
    async listCalendars(filter = {}) {
      const { ownerId, propertyId, includeDirect = false } = filter;
      const params = [ownerId, propertyId].filter((value): value is string => value != null);
      return listFor(ownerId != null, propertyId != null, includeDirect).all(...params).map(toCalendar);
    },
    async getCalendar(id) {
      const row = one.get(id);
      return row && toCalendar(row);
    },
    removeCalendar: async (id) => removeWhole(id),
  };
}
