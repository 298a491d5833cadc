// Chooses the backend of a `reservation` or `availability` run from its flags, as `sync` does: a server
// by default, this machine's database with --local (or when --db or --owner names one).
import { UsageError, type CliContext } from "../context.js";
import type { StaysBackend } from "./backend.js";

/** The backend flags every such command takes. */
export interface BackendFlags {
  local?: boolean | undefined;
  db?: string | undefined;
  owner?: string | undefined;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  timeout?: number | undefined;
  /** Local only: the refresh may fetch feeds on loopback and private addresses. */
  allowPrivateNetworks?: boolean | undefined;
  /** Local only: the longest wait for the refresh before a check, in milliseconds. */
  refreshTimeout?: number | undefined;
}

// Flags of one mode used in the other are a usage error, not silently ignored.
const REMOTE_ONLY = { baseUrl: "--base-url", apiKey: "--api-key", timeout: "--timeout" } as const;

/** The local or remote backend; heavy imports only for the one used. */
export async function openStaysBackend(flags: BackendFlags, context: CliContext): Promise<StaysBackend> {
  const local = flags.local === true || flags.db !== undefined || flags.owner !== undefined;
  if (local) {
    for (const [key, flag] of Object.entries(REMOTE_ONLY)) {
      if (flags[key as keyof typeof REMOTE_ONLY] !== undefined) throw new UsageError(`${flag} does not apply to the local database (--local, --db, --owner)`);
    }
    const { localStaysBackend } = await import("./local.js");
    const { db, owner, allowPrivateNetworks, refreshTimeout } = flags;
    return localStaysBackend({ db, owner, allowPrivateNetworks, refreshTimeoutMs: refreshTimeout }, context);
  }
  if (flags.allowPrivateNetworks !== undefined) {
    throw new UsageError("--allow-private-networks only applies to the local database (--local, --db, --owner): a server has its own setting");
  }
  if (flags.refreshTimeout !== undefined) {
    throw new UsageError("--refresh-timeout only applies to the local database (--local, --db, --owner): a server has its own setting");
  }
  const { remoteStaysBackend } = await import("./remote.js");
  return remoteStaysBackend(flags, context);
}
