// Where each private feed's secret lives (CONTRACT §18), for both dialects' statements.
import type { OwnerCalendarReservation, PrivateFeed } from "./types.js";

/** The table and column of each private feed's secret (names from this table only, never from input). */
export const FEED_SECRET_COLUMNS: Record<PrivateFeed, { table: "properties" | "owners"; column: "cleaning_token" | "calendar_token" }> = {
  "property-cleaning": { table: "properties", column: "cleaning_token" },
  "owner-cleaning": { table: "owners", column: "cleaning_token" },
  "owner-calendar": { table: "owners", column: "calendar_token" },
};

/** Length of a private feed's secret: 32 base62 characters, over 190 bits, like the outbound feed's. */
export const FEED_SECRET_LENGTH = 32;

/** The owner-calendar statement's row: the DESCRIPTION is read out of `details` (JSON) by `ownerCalendarRow`. */
export interface OwnerCalendarDbRow {
  id: string;
  propertyId: string;
  source: string;
  kind: string;
  arrival: string;
  departure: string;
  summary: string;
  note: string | null;
  details: string | Record<string, unknown> | null;
}

/** Columns of the owner-calendar statement (`r` reservations, `c` calendars), both dialects. */
export const OWNER_CALENDAR_COLUMNS = `r.id, c.property_id AS "propertyId", c.source, r.kind, r.arrival, r.departure, r.summary, r.note, r.details`;

/** A row of the owner-calendar statement as the store answers it. */
export function ownerCalendarRow(row: OwnerCalendarDbRow): OwnerCalendarReservation {
  const details = typeof row.details === "string" ? (JSON.parse(row.details) as Record<string, unknown>) : (row.details ?? {});
  const description = typeof details.description === "string" && details.description !== "" ? details.description : null;
  return {
    id: row.id,
    propertyId: row.propertyId,
    source: row.source as OwnerCalendarReservation["source"],
    kind: row.kind as OwnerCalendarReservation["kind"],
    arrival: row.arrival,
    departure: row.departure,
    summary: row.summary,
    note: row.note ?? null,
    description,
  };
}
