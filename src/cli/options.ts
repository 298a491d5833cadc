// Flags shared by several commands, defined once so that their names and help read the same everywhere.
import { InvalidArgumentError, Option } from "@commander-js/extra-typings";
import { UsageError } from "./context.js";

const FEED_PROTOCOLS = ["http:", "https:", "webcal:", "webcals:"];

/** `--db PATH|URL`: the SQLite file or a `postgres://` URL; `CALSYNC_DB` and the user data directory are the fallbacks. */
export function dbOption() {
  return new Option("--db <path>", "SQLite database file or postgres:// URL (default: $CALSYNC_DB, else the user data directory)");
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

/** Parses a positive whole number (a count, e.g. of fetches at once); commander reports the error as a usage error. */
export function parseCount(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) <= 0 || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError("expected a positive whole number, e.g. 8");
  }
  return Number(value);
}

/** `--allow-private-networks`: let `urls` (feed URLs unless told) reach loopback and private addresses (CONTRACT §5, §11). */
export function allowPrivateNetworksOption(urls = "feed URLs") {
  return new Option("--allow-private-networks", `let ${urls} reach loopback and private addresses (or CALSYNC_ALLOW_PRIVATE_NETWORKS=1)`);
}

/** The flag when given, else `CALSYNC_ALLOW_PRIVATE_NETWORKS` (`1` or `true`); off by default. */
export function privateNetworksAllowed(flag: boolean | undefined, env: Record<string, string | undefined>): boolean {
  const value = env.CALSYNC_ALLOW_PRIVATE_NETWORKS;
  return flag ?? (value === "1" || value === "true");
}

/** Accepts http(s) and webcal(s) URLs; anything else cannot be fetched. */
export function checkFeedUrl(raw: string): string {
  const url = raw.trim();
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new UsageError("--url is not a valid URL (expected http://, https:// or webcal://…)");
  }
  if (!FEED_PROTOCOLS.includes(protocol)) {
    throw new UsageError(`--url must be an http://, https:// or webcal:// address, not ${protocol}//`);
  }
  return url;
}
