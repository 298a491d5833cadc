// Some channels give a booking a new UID when it is edited (CONTRACT §8): a UID that vanishes from a
// feed while a new one with exactly the same nights and kind appears in the same fetch is that same
// reservation re-issued, one update rather than a cancellation beside a creation. Pure.
import type { DatedEvent, Nights, ReservationKind, StoredReservation } from "./model.js";

/**
 * Pairs new events with vanished rows of the same calendar holding exactly their arrival, departure and
 * kind. Only one-to-one: where two new events or two vanished rows share those, which one became which
 * cannot be known, so none of them pair and the feed is taken as written (cancelled and created).
 */
export function pairReissued(fresh: readonly DatedEvent[], lost: readonly StoredReservation[]): Map<DatedEvent, StoredReservation> {
  const pairs = new Map<DatedEvent, StoredReservation>();
  if (fresh.length === 0 || lost.length === 0) return pairs;
  const rows = groupBy(lost);
  for (const [key, events] of groupBy(fresh)) {
    const candidates = rows.get(key);
    if (events.length === 1 && candidates?.length === 1) pairs.set(events[0]!, candidates[0]!);
  }
  return pairs;
}

function groupBy<T extends Nights & { kind: ReservationKind }>(items: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = `${item.kind} ${item.arrival} ${item.departure}`;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
