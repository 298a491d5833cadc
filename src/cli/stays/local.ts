// This machine's database as a `StaysBackend` (`--local`, `--db`, `--owner`): the direct-stay service
// without a server. Not wired yet on this branch. Wiring it is this one file: open the store and the
// owner through `context`, call the resource functions the API routes call (create/update/cancel and
// availability, with a `refresh` that syncs the owner under its lease as `sync --local` does), return
// the stay on success, and turn a refusal into `nightsTaken(conflicts)` (409 `nights_unavailable`),
// `UsageError` (422: a value the user typed) or `CliFailure` exit 1 (404, `not_direct`); the commands, their output
// and exit codes then stay the same whichever backend answers.
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
