// The reservation listing people read (`calsync reservations`); the engine's own reads are in sync-port.ts.
import type Database from "better-sqlite3";
import { PROPERTY_ORDER } from "./properties.js";
import { toReservationRow, type ReservationDbRow } from "./rows.js";
import type { Store } from "./types.js";

export type ReservationQueries = Pick<Store, "listReservations">;

/** Prepares the reservation listing of one database. */
export function reservationQueries(db: Database.Database): ReservationQueries {
  type Filter = [string | null, string | null, string | null, string | null, string | null, string | null];
  const all = db.prepare<Filter, ReservationDbRow>(
    `SELECT r.*, c.property_id, c.source FROM reservations r
     JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id
     WHERE (? IS NULL OR p.owner_id = ?) AND (? IS NULL OR c.property_id = ?) AND (? IS NULL OR r.status = ?)
     ORDER BY ${PROPERTY_ORDER}, r.start, c.seq, r.uid`,
  );

  return {
    listReservations(filter = {}) {
      const { ownerId = null, propertyId = null, status = null } = filter;
      return all.all(ownerId, ownerId, propertyId, propertyId, status, status).map(toReservationRow);
    },
  };
}
