// Errors of the store the doors tell apart: a database that cannot be reached (503, exit 1), and `db copy`'s refusal.

/** The database cannot be reached (down, refused, timed out, dropped): the server answers 503 `unavailable`. */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}

/** `db copy` found rows in the target; nothing was written. */
export class DatabaseNotEmptyError extends Error {
  override name = "DatabaseNotEmptyError";
  constructor(readonly counts: Record<string, number>) {
    const filled = Object.entries(counts).filter(([, n]) => n > 0).map(([table, n]) => `${table}: ${n}`);
    super(`the target database is not empty (${filled.join(", ")}); db copy only writes into an empty database`);
  }
}

/** True when `error` says the database could not be reached, whichever store raised it. */
export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}
