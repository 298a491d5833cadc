// A store that cannot write (disk full, I/O error, read-only database or role) says so with this error:
// the engine fails the calendar being written with `write_failed` and goes on with the others (CONTRACT §4).
import type { SyncError } from "../types.js";

/** The database refused a write for a reason of its own storage, not of the data written. */
export class WriteFaultError extends Error {
  override name = "WriteFaultError";
  /**
   * @param reason what went wrong in words fit for an API answer (no path, no SQL): "the database's disk is full"
   * @param cause the driver's error, for the server's log
   */
  constructor(
    readonly reason: string,
    override readonly cause: unknown,
  ) {
    super(`the database could not write: ${reason}`);
  }

  /** The driver's own words (code and message), for the server's log only. */
  get detail(): string {
    const { code, message } = (this.cause ?? {}) as { code?: unknown; message?: unknown };
    return [typeof code === "string" ? code : undefined, typeof message === "string" ? message : undefined].filter(Boolean).join(": ");
  }
}

/** True when `error` is a store's refusal to write. */
export function isWriteFault(error: unknown): error is WriteFaultError {
  return error instanceof WriteFaultError;
}

/** Awaits `write`; a write fault gives undefined instead (for writes a sync can do without, like its history). */
export async function ignoreWriteFault<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (isWriteFault(error)) return undefined;
    throw error;
  }
}

/** The failure of a calendar the database could not write; the driver's words go to the log, not here. */
export function writeFailed(fault: WriteFaultError): SyncError {
  return { code: "write_failed", message: `calendar could not be written (${fault.reason}); nothing was changed` };
}
