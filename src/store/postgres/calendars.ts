// Calendars: one feed URL of a property, with what its last sync left behind.
import { calendarFilter } from "../calendar-filter.js";
import { FORGET_LINK } from "../channel-rows.js";
import { newId } from "../../ids.js";
import type { PgDatabase } from "./pool.js";
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

/** The calendar queries of one database. */
export function calendarQueries(db: PgDatabase): CalendarQueries {
  const one = async (id: string) => (await db.query<CalendarRow>(`${CALENDAR_SELECT} WHERE c.id = $1`, [id]))[0];

  return {
    async createCalendar({ propertyId, url, source }) {
      const id = newId("cal");
      await db.run(
        "INSERT INTO calendars (id, property_id, url, source, created_at) VALUES ($1, $2, $3, $4, $5)",
        [id, propertyId, url, source, new Date().toISOString()],
      );
      return toCalendar((await one(id))!);
    },
    async listCalendars(filter = {}) {
      const { ownerId, propertyId, includeDirect = false } = filter;
      // Only the filters given, as on SQLite: a filter written `$2 IS NULL OR …` is planned once for every value.
      const where = calendarFilter({ owner: ownerId != null, property: propertyId != null, direct: includeDirect }, (n) => `$${n}`);
      const params = [ownerId, propertyId].filter((value): value is string => value != null);
      const rows = await db.query<CalendarRow>(`${CALENDAR_SELECT} WHERE ${where} ORDER BY ${CALENDAR_ORDER}`, params);
      return rows.map(toCalendar);
    },
    async getCalendar(id) {
      const row = await one(id);
      return row && toCalendar(row);
    },
    // Reservations go with it (ON DELETE CASCADE); the sync history keeps its rows, unlinked. Its nights
    // leave the property's outbound feed, whose Last-Modified must not go back in time. The calendar is
    // locked before its property, and its rows after: a sync writing it locks the property first, but
    // only FOR KEY SHARE, which the stamp does not wait for, so neither can wait on the other in a circle.
    removeCalendar: (id) =>
      db.transaction(async (sql) => {
        if ((await sql.query("SELECT 1 FROM calendars WHERE id = $1 FOR UPDATE", [id])).length === 0) return false;
        // Removing a calendar removes its link's state (CONTRACT §17), unless another calendar of its source stays.
        for (const table of ["channel_links", "channel_reads", "channel_exposures"]) await sql.run(FORGET_LINK(table, (n) => `$${n}`), [id]);
        await sql.run(TOUCH_PROPERTY_FEED, [new Date().toISOString(), id]);
        return (await sql.run("DELETE FROM calendars WHERE id = $1", [id])) > 0;
      }),
  };
}
