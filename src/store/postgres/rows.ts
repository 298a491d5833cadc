// Row shapes of the PostgreSQL tables and their mapping to records: pool.ts makes rows arrive exactly as
// SQLite's do (times as ISO-8601 text, JSON as text, counts as numbers), so the mapping is SQLite's own.
export {
  toCalendar,
  toOwner,
  toProperty,
  toReservationRow,
  toStoredReservation,
  toSyncRun,
  toToken,
  toApiReservation,
  API_COLUMNS,
  type CalendarRow,
  type OwnerRow,
  type PropertyRow,
  type ReservationDbRow,
  type SyncRunDbRow,
  type TokenRow,
} from "../sqlite/rows.js";
