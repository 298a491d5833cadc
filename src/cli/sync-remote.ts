// `calsync sync` without --local: asks a calsync server through the SDK (see ./remote-client.ts for the
// client and the exit codes of its errors) and prints the same report as a local sync.
import type { CliContext } from "./context.js";
import { printSyncResponse } from "./output.js";
import { connectRemote, type RemoteOptions } from "./remote-client.js";

/** Flags of a remote sync, as the `sync` command parsed them. */
export interface RemoteSyncOptions extends RemoteOptions {
  /** `--json`: print the Sync response unchanged. */
  json?: boolean;
}

/** Runs a sync on a calsync server and prints its answer; sets `context.exitCode` (0 all ok, 3 some failed). */
export async function remoteSync(options: RemoteSyncOptions, context: CliContext): Promise<void> {
  const remote = connectRemote(options, context, "or sync this machine's database with --local");
  let response;
  try {
    response = await remote.client.calendars.sync({ signal: remote.signal });
  } catch (error) {
    throw remote.failure(error);
  }
  printSyncResponse(context, response, { json: options.json });
}
