// This machine's database as a `StaysBackend` (`--local`, `--db`, `--owner`): the direct-stay service
// of src/engine and src/store, without a server. Not wired yet on this branch; the commands, their
// output and exit codes are the same whichever backend answers.
import { UsageError, type CliContext } from "../context.js";
import type { StaysBackend } from "./backend.js";

/** Flags of the local database. */
export interface LocalStaysOptions {
  db?: string | undefined;
  owner?: string | undefined;
}

/** The local backend: for now a usage error that points at the server. */
export async function localStaysBackend(_options: LocalStaysOptions, _context: CliContext): Promise<StaysBackend> {
  throw new UsageError(
    "direct stays on the local database are not available yet in this version: " +
      "run `calsync serve` and call it with --base-url and --api-key (or CALSYNC_BASE_URL and CALSYNC_API_KEY)",
  );
}
