// Property time zones as the dashboard offers them (CONTRACT §8), and the one place a chosen zone is stored.
import type { Property, Store } from "../../store/types.js";

/** Every IANA zone this Node.js knows, plus `UTC` (which `Intl` lists only as `Etc/UTC`), sorted. */
export const TIME_ZONES: readonly string[] = [...new Set(["UTC", ...Intl.supportedValuesOf("timeZone")])].sort();

/** True for a zone of the list (the empty string means "not set"). */
export function isKnownTimeZone(zone: string): boolean {
  return zone === "" || TIME_ZONES.includes(zone);
}

/**
 * Creates a property with its time zone. The store in this version takes no zone yet (property time
 * zones arrive with CONTRACT §8 in a parallel change): the zone is validated and then dropped here,
 * the one call to change when `createProperty` takes it.
 */
export async function createPropertyInZone(store: Store, ownerId: string, name: string, _timeZone: string | null): Promise<Property> {
  return store.createProperty(ownerId, name);
}
