// Both dialects read a property's availability with one statement of the same columns; this turns its rows
// into what the availability rule takes, so the mapping is written once.
import type { ReservationKind, ReservationStatus } from "../engine/model.js";
import type { AvailabilityRows } from "./types.js";

/** A row of the availability statement: an active reservation and the status of the stay it echoes, if any. */
export interface AvailabilityDbRow {
  id: string;
  status: ReservationStatus;
  arrival: string;
  departure: string;
  echoOf: string | null;
  kind: ReservationKind;
  /** Null when the reservation echoes nothing, or its target is gone (then it counts as active). */
  targetStatus: ReservationStatus | null;
}

/** The reservations and echo-target statuses of `rows`. */
export function availabilityRows(rows: readonly AvailabilityDbRow[]): AvailabilityRows {
  const echoTargets: AvailabilityRows["echoTargets"] = [];
  const reservations = rows.map(({ id, status, arrival, departure, echoOf, kind, targetStatus }) => {
    if (echoOf !== null && targetStatus !== null) echoTargets.push({ id: echoOf, status: targetStatus });
    return { id, status, arrival, departure, echoOf, kind };
  });
  return { reservations, echoTargets };
}
