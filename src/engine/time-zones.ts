// A property's time zone as people type it: checked with Intl (never a list of our own), spelled as
// the IANA database spells it.
import { isTimeZone } from "./wall-time.js";

let known: Map<string, string> | undefined;

/**
 * The IANA name of `input` ("america/los_angeles" → "America/Los_Angeles"; an alias Intl knows, such as
 * "US/Pacific", kept as typed), or null when Intl does not know it. Numeric offsets ("+02:00") are
 * refused: a place's clock moves with daylight saving time, an offset never does.
 */
export function canonicalTimeZone(input: string): string | null {
  const name = input.trim();
  if (!name || !isTimeZone(name, false)) return null;
  known ??= new Map(["UTC", ...Intl.supportedValuesOf("timeZone")].map((zone) => [zone.toLowerCase(), zone]));
  return known.get(name.toLowerCase()) ?? name;
}
