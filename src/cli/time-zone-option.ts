// `--timezone ZONE` of the property commands: a file of its own, so that the other commands' options do
// not load the zone tables (engine/time-zones.ts and wall-time.ts) at start.
import { InvalidArgumentError, Option } from "@commander-js/extra-typings";
import { canonicalTimeZone } from "../engine/time-zones.js";

/** `--timezone ZONE`: a property's IANA time zone, checked with Intl and spelled as IANA spells it. */
export function timeZoneOption(description = "IANA time zone of the property, e.g. America/Los_Angeles: its nights are counted there") {
  return new Option("--timezone <zone>", description).argParser(parseTimeZone);
}

/** Parses an IANA zone name; commander reports the error as a usage error (exit 2). */
export function parseTimeZone(value: string): string {
  if (!value.trim()) throw new InvalidArgumentError("the time zone is empty (to remove a property's zone: --no-timezone)");
  const zone = canonicalTimeZone(value);
  if (zone === null) {
    throw new InvalidArgumentError(
      `unknown time zone ${JSON.stringify(value.trim())}: give an IANA name such as America/Los_Angeles, Europe/Lisbon or Pacific/Auckland`,
    );
  }
  return zone;
}
