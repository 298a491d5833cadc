// The turnover settings of a property row (CONTRACT §18) as both dialects write them.
import type { PropertyRow } from "./sqlite/rows.js";
import type { PropertyChanges } from "./types.js";

/**
 * The columns `check_in_time, check_out_time, buffer_nights, cleaner_emails` and whether the buffer moved
 * (1/0, to stamp the outbound feed), or null when `changes` leaves all four as they are.
 */
export function settingsChange(before: PropertyRow, changes: PropertyChanges): [string, string, number, string, number] | null {
  const checkIn = changes.checkInTime ?? before.check_in_time;
  const checkOut = changes.checkOutTime ?? before.check_out_time;
  const buffer = changes.bufferNights ?? Number(before.buffer_nights);
  const cleaners = changes.cleanerEmails === undefined ? before.cleaner_emails : JSON.stringify(changes.cleanerEmails);
  const bufferMoved = buffer !== Number(before.buffer_nights);
  if (checkIn === before.check_in_time && checkOut === before.check_out_time && !bufferMoved && cleaners === before.cleaner_emails) return null;
  return [checkIn, checkOut, buffer, cleaners, bufferMoved ? 1 : 0];
}
