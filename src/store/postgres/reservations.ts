// The reservation listings people read (`calsync reservations`, the outbound feed); the engine's own reads are in sync-port.ts.
import type { OutboundReservation } from "../../engine/outbound-feed.js";
import type { PgDatabase } from "./pool.js";
import { PROPERTY_ORDER } from "./properties.js";
import { toReservationRow, type ReservationDbRow } from "./rows.js";
import { availabilityRows, type AvailabilityDbRow } from "../availability-rows.js";
import type { Store, TurnoverBooking } from "../types.js";

export type ReservationQueries = Pick<Store, "listReservations" | "propertyFeedReservations" | "availabilityReservations" | "turnoverBookings">;

/** The reservation listings of one database. */
export function reservationQueries(db: PgDatabase): ReservationQueries {
  return {
    async listReservations(filter = {}) {
      const { ownerId = null, propertyId = null, status = null } = filter;
      const rows = await db.query<ReservationDbRow>(
        `SELECT r.*, c.property_id, c.source FROM reservations r
         JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id
         WHERE ($1::text IS NULL OR p.owner_id = $1) AND ($2::text IS NULL OR c.property_id = $2)
           AND ($3::text IS NULL OR r.status = $3)
         ORDER BY ${PROPERTY_ORDER}, r.arrival COLLATE "C", r.start COLLATE "C", c.seq, r.uid COLLATE "C"`,
        [ownerId, propertyId, status],
      );
      return rows.map(toReservationRow);
    },
    // One statement, one snapshot: the echoes' targets are read with them (no guest detail selected).
    availabilityReservations: async (propertyId, { from, to }) =>
      availabilityRows(
        await db.query<AvailabilityDbRow>(
          `SELECT r.id, r.status, r.arrival, r.departure, r.echo_of AS "echoOf", r.kind, t.status AS "targetStatus" FROM reservations r
           JOIN calendars c ON c.id = r.calendar_id LEFT JOIN reservations t ON t.id = r.echo_of
           WHERE c.property_id = $1 AND r.status = 'active' AND r.arrival COLLATE "C" < $2 AND r.departure COLLATE "C" > $3
           ORDER BY r.arrival COLLATE "C", r.id COLLATE "C"`,
          [propertyId, to, from],
        ),
      ),
    turnoverBookings: ({ ownerId = null, propertyId = null, departingFrom }) =>
      db.query<TurnoverBooking>(
        `SELECT r.id, c.property_id AS "propertyId", r.arrival, r.departure FROM reservations r
         JOIN calendars c ON c.id = r.calendar_id JOIN properties p ON p.id = c.property_id
         WHERE ($1::text IS NULL OR p.owner_id = $1) AND ($2::text IS NULL OR c.property_id = $2)
           AND r.status = 'active' AND r.kind = 'booking' AND r.echo_of IS NULL AND r.departure COLLATE "C" >= $3`,
        [ownerId, propertyId, departingFrom],
      ),
    // One snapshot for both reads, as SQLite's transaction gives.
    propertyFeedReservations: (propertyId) =>
      db.transaction(async (sql) => {
        // Nothing about the guest is selected: the outbound feed must not be able to leak it.
        const reservations = await sql.query<OutboundReservation>(
          `SELECT r.id, c.source, r.arrival, r.departure, r.kind, r.status, r.echo_of AS "echoOf" FROM reservations r
           JOIN calendars c ON c.id = r.calendar_id WHERE c.property_id = $1 AND r.status = 'active'`,
          [propertyId],
        );
        // Cancelled rows count too: a cancellation changes the feed (its nights leave it); so does a
        // removed calendar, whose rows are gone and leave only the property's feed_changed_at behind.
        const [last] = await sql.query<{ at: string | null }>(
          `SELECT MAX(at) AS at FROM (
             SELECT MAX(r.updated_at) AS at FROM reservations r JOIN calendars c ON c.id = r.calendar_id WHERE c.property_id = $1
             UNION ALL SELECT feed_changed_at FROM properties WHERE id = $1) changes`,
          [propertyId],
        );
        return { reservations, updatedAt: last?.at ?? null };
      }, "ISOLATION LEVEL REPEATABLE READ READ ONLY"),
  };
}
