// The flags that choose where `reservation …` and `availability` work, defined once (as `sync` spells them).
import { Option, type Command, type OptionValues } from "@commander-js/extra-typings";
import { dbOption, ownerOption, parseMilliseconds } from "../options.js";

/** `--local`: this machine's database instead of a server. */
export function localOption() {
  return new Option("--local", "use this machine's database instead of calling a server (implied by --db or --owner)");
}

/** `--allow-private-networks`: the local refresh may fetch feeds on loopback and private addresses, as `sync --local`. */
export function privateNetworksOption() {
  return new Option("--allow-private-networks", "with the local database: let the refresh fetch feed URLs on loopback and private addresses (or CALSYNC_ALLOW_PRIVATE_NETWORKS=1)");
}

/** `--refresh-timeout MS`: how long the local check waits for the channels, as `serve --refresh-timeout` (CONTRACT §14). */
export function refreshTimeoutOption() {
  return new Option(
    "--refresh-timeout <ms>",
    "with the local database: milliseconds to wait for the channels before checking; a calendar slower than that is checked as last synced (default 8000)",
  ).argParser(parseMilliseconds);
}

/** `--base-url URL`: the server to call. */
export function baseUrlOption() {
  return new Option("--base-url <url>", "server to call (default: $CALSYNC_BASE_URL, else http://localhost:8787)");
}

/** `--api-key KEY`: the token sent to the server. */
export function apiKeyOption() {
  return new Option("--api-key <key>", "API token (default: $CALSYNC_API_KEY)");
}

/** `--timeout MS`: deadline of the whole server call. */
export function remoteTimeoutOption() {
  return new Option("--timeout <ms>", "milliseconds to wait for the server, retries included").argParser(parseMilliseconds);
}

/** Adds the "Where" group (server flags, then the local database's) that every such command lists the same way. */
export function addWhereOptions<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(command: Command<Args, Opts, Globals>) {
  return command
    .optionsGroup("Where (a server by default):")
    .addOption(baseUrlOption())
    .addOption(apiKeyOption())
    .addOption(remoteTimeoutOption())
    .addOption(localOption())
    .addOption(dbOption())
    .addOption(ownerOption());
}

/** The exit codes every such command documents in its help. */
export const STAYS_EXIT_CODES = [
  "",
  "Exit codes: 0 done, 6 the nights are taken (the stays holding them on stderr), 2 usage error (also a value the server refused),",
  "            4 authentication or missing scope, 5 network or server error, 1 anything else (not found, a cancelled stay, …).",
].join("\n");
