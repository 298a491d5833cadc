// The reservation listings people read (`calsync reservations`, the outbound feed); the engine's own reads are in sync-port.ts.
import type Database from "better-sqlite3";
import type { OutboundReservation } from "../../engine/outbound-feed.js";
import { PROPERTY_ORDER } from "./properties.js";
import { toReservationRow, type ReservationDbRow } from "./rows.js";
import { availabilityRows, type AvailabilityDbRow } from "../availability-rows.js";
import type { Store, TurnoverBooking } from "../types.js";

export type ReservationQueries = Pick<Store, "listReservations" | "propertyFeedReservations" | "availabilityReservations" | "turnoverBookings">;

/** Prepares the reservation listing of one database. */
export function reservationQueries(db: Database.Database): ReservationQueries {
  type Filter = [string | null, string | null, string | null, string | null, string | null, string | null];
  const all = db.prepare<Filter, ReservationDbRow>(
    `SELECT r.*, c.property_id, c.source FROM reservations r
     JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id
     WHERE (? IS NULL OR p.owner_id = ?) AND (? IS NULL OR c.property_id = ?) AND (? IS NULL OR r.status = ?)
     ORDER BY ${PROPERTY_ORDER}, r.arrival, r.start, c.seq, r.uid`,
  );
  // Nothing about the guest is selected: the outbound feed must not be able to leak it.
  const feedRows = db.prepare<[string], OutboundReservation>(
    `SELECT r.id, c.source, r.arrival, r.departure, r.kind, r.status, r.echo_of AS echoOf FROM reservations r
     JOIN calendars c ON c.id = r.calendar_id WHERE c.property_id = ? AND r.status = 'active'`,
  );
  // Cancelled rows count too: a cancellation changes the feed (its nights leave it); so does a
  // removed calendar, whose rows are gone and leave only the property's feed_changed_at behind.
  const lastChange = db.prepare<[string, string], { at: string | null }>(
    `SELECT MAX(at) AS at FROM (
       SELECT MAX(r.updated_at) AS at FROM reservations r JOIN calendars c ON c.id = r.calendar_id WHERE c.property_id = ?
       UNION ALL SELECT feed_changed_at FROM properties WHERE id = ?)`,
  );
  // One statement, one snapshot: the echoes' targets are read with them (no guest detail selected).
  const availability = db.prepare<[string, string, string], AvailabilityDbRow>(
    `SELECT r.id, r.status, r.arrival, r.departure, r.echo_of AS echoOf, r.kind, t.status AS targetStatus FROM reservations r
     JOIN calendars c ON c.id = r.calendar_id LEFT JOIN reservations t ON t.id = r.echo_of
     WHERE c.property_id = ? AND r.status = 'active' AND r.arrival < ? AND r.departure > ? ORDER BY r.arrival, r.id`,
  );
  const turnovers = db.prepare<[string | null, string | null, string | null, string | null, string], TurnoverBooking>(
    `SELECT r.id, c.property_id AS propertyId, r.arrival, r.departure FROM reservations r
     JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id
     WHERE (? IS NULL OR p.owner_id = ?) AND (? IS NULL OR c.property_id = ?)
       AND r.status = 'active' AND r.kind = 'booking' AND r.echo_of IS NULL AND r.departure >= ?`,
  );
  const readFeed = db.transaction((propertyId: string) => ({
    reservations: feedRows.all(propertyId),
    updatedAt: lastChange.get(propertyId, propertyId)?.at ?? null,
  }));

  return {
    async listReservations(filter = {}) {
      const { ownerId = null, propertyId = null, status = null } = filter;
      return all.all(ownerId, ownerId, propertyId, propertyId, status, status).map(toReservationRow);
    },
    propertyFeedReservations: async (propertyId) => readFeed(propertyId),
    availabilityReservations: async (propertyId, { from, to }) => availabilityRows(availability.all(propertyId, to, from)),
    turnoverBookings: async ({ ownerId = null, propertyId = null, departingFrom }) =>
      turnovers.all(ownerId, ownerId, propertyId, propertyId, departingFrom),
  };
}
