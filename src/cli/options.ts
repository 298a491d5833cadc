// Flags shared by several commands, defined once so that their names and help read the same everywhere.
import { InvalidArgumentError, Option } from "@commander-js/extra-typings";

/** `--db PATH`: the SQLite file; `CALSYNC_DB` and the user data directory are the fallbacks. */
export function dbOption() {
  return new Option("--db <path>", "SQLite database file (default: $CALSYNC_DB, else the user data directory)");
}

/** `--json`: one JSON document on stdout instead of text for people. */
export function jsonOption() {
  return new Option("--json", "print one JSON document to stdout");
}

/** `--owner O`: an owner id or name; may be left out when the database has exactly one owner. */
export function ownerOption(description = "owner id or name (may be left out when there is only one owner)") {
  return new Option("--owner <owner>", description);
}

/** `--property ID`: filter or target one property. */
export function propertyOption(description = "only this property (id)") {
  return new Option("--property <id>", description);
}

/** `--timeout MS`: a positive whole number of milliseconds. */
export function timeoutOption(description: string) {
  return new Option("--timeout <ms>", description).argParser(parseMilliseconds);
}

/** Parses a positive whole number of milliseconds; commander reports the error as a usage error. */
export function parseMilliseconds(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) <= 0 || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError("expected a positive whole number of milliseconds, e.g. 20000");
  }
  return Number(value);
}
