// `calsync sync` without --local: asks a calsync server through the SDK.
//
// STUB — to be replaced by the SDK-based implementation (remote half of the CLI). Its contract:
// read CALSYNC_API_KEY / CALSYNC_BASE_URL from `context.io.env` when the flags are absent
// (default base URL http://localhost:8787), print with `printSyncResponse` from ./output.js
// (exit 0 / 3), and throw CliFailure with exit 4 (authentication) or 5 (network, server error).
import { CliFailure, EXIT, type CliContext } from "./context.js";

/** Flags of a remote sync, as the `sync` command parsed them. */
export interface RemoteSyncOptions {
  /** `--base-url`; falls back to `CALSYNC_BASE_URL`, then `http://localhost:8787`. */
  baseUrl?: string;
  /** `--api-key`; falls back to `CALSYNC_API_KEY`. */
  apiKey?: string;
  /** `--timeout`: deadline of the whole request, in milliseconds. */
  timeout?: number;
  /** `--json`: print the Sync response unchanged. */
  json?: boolean;
}

/** Runs a sync on a calsync server and prints its answer; sets `context.exitCode`. */
export async function remoteSync(_options: RemoteSyncOptions, _context: CliContext): Promise<void> {
  throw new CliFailure("remote sync is not available yet (use --local to sync on this machine)", EXIT.failure);
}
