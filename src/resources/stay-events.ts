// The §11 `reservation.*` webhook events of a direct-stay change, written to the outbox in its transaction.
import type { DirectStayChange } from "../store/types.js";
import type { WebhookEvent, WebhookReservation } from "../types.js";

/** One event for the change: created, updated (with the previous dates) or cancelled. */
export function directStayEvents(change: DirectStayChange, at: Date): WebhookEvent[] {
  const timestamp = at.toISOString();
  const reservation = webhookReservation(change.reservation, change.propertyName);
  if (change.type === "updated") {
    const { arrival, departure } = change.previous!;
    const previous = { start: arrival, end: departure, arrival, departure };
    return [{ type: "reservation.updated", timestamp, data: { reservation, previous } }];
  }
  return [{ type: `reservation.${change.type}`, timestamp, data: { reservation } }];
}

function webhookReservation(r: DirectStayChange["reservation"], propertyName: string): WebhookReservation {
  const { id, propertyId, calendarId, source, kind, status, arrival, departure, summary } = r;
  // A direct stay is all-day: its start and end are its nights, its uid its id.
  return { id, propertyId, propertyName, calendarId, source, uid: id, kind, status, start: arrival, end: departure, arrival, departure, summary };
}
