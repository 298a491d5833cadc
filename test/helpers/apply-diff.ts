// Applies a DiffResult to an in-memory list of reservations the way the store does, so diff tests can
// run several syncs in a row without a database.
import type { DiffResult } from "../../src/engine/diff.js";
import type { DatedEvent, StoredReservation } from "../../src/engine/model.js";

let nextId = 1;

/** The stored reservations after writing `diff` (inserts, overwrites, cancels), as a new array. */
export function applyDiff(stored: StoredReservation[], diff: DiffResult, calendarId = "cal_test"): StoredReservation[] {
  const rows = new Map(stored.map((row) => [row.id, { ...row }]));
  const fromEvent = (id: string, event: DatedEvent): StoredReservation => ({
    id,
    calendarId,
    uid: event.uid,
    kind: event.kind,
    status: "active",
    start: event.start,
    end: event.end,
    summary: event.summary,
    details: { ...event.details },
    arrival: event.arrival,
    departure: event.departure,
    eventZone: event.zone ?? null,
  });
  for (const { id, event } of diff.updates) rows.set(id, fromEvent(id, event));
  for (const id of diff.cancels) {
    const row = rows.get(id);
    if (row) row.status = "cancelled";
  }
  for (const event of diff.inserts) {
    const id = `res_${nextId++}`;
    rows.set(id, fromEvent(id, event));
  }
  return [...rows.values()];
}
