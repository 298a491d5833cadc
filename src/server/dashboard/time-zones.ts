// Property time zones as the dashboard offers them (CONTRACT §8), and the one place a chosen zone is stored.
import type { Property, Store } from "../../store/types.js";

/** Every IANA zone this Node.js knows, plus `UTC` (which `Intl` lists only as `Etc/UTC`), sorted. */
export const TIME_ZONES: readonly string[] = [...new Set(["UTC", ...Intl.supportedValuesOf("timeZone")])].sort();

/** True for a zone of the list (the empty string means "not set"). */
export function isKnownTimeZone(zone: string): boolean {
  return zone === "" || TIME_ZONES.includes(zone);
}

/** Creates a property with its time zone (null: none set, CONTRACT §8). */
export async function createPropertyInZone(store: Store, ownerId: string, name: string, timeZone: string | null): Promise<Property> {
  return store.createProperty(ownerId, name, timeZone);
}
