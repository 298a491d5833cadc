// Rate-limit counts on SQLite: none in the database. One `calsync serve` serves a SQLite file, so the
// server counts in its own memory (CONTRACT §12); PostgreSQL's twin shares them across instances.
import type { Store } from "../types.js";

export type RateLimitQueries = Pick<Store, "sharedRateLimiter">;

/** The (absent) shared rate limiter of one SQLite file. */
export function rateLimitQueries(): RateLimitQueries {
  return { sharedRateLimiter: async () => undefined };
}
