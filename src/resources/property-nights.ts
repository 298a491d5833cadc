// A property's nights in a range by the one availability rule (CONTRACT §14, §15, §18), read the same way by
// the API, the public availability feed and the CLI: the store's rows read wide enough for the property's
// buffer, then the rule with that buffer.
import { availabilityNights, bufferedRange, type AvailabilityNight } from "../engine/availability.js";
import type { Property, Store } from "../store/types.js";

/** Every night in [from, to) of `property` with whether it is free and which active stays hold it. */
export async function propertyNights(store: Store, property: Property, range: { from: string; to: string }): Promise<AvailabilityNight[]> {
  const { from, to } = range;
  const bufferNights = property.bufferNights;
  const { reservations, echoTargets } = await store.availabilityReservations(property.id, bufferedRange({ from, to }, bufferNights));
  const targetStatus = new Map(echoTargets.map((t) => [t.id, t.status]));
  return availabilityNights(reservations, { from, to, targetStatus, bufferNights });
}
