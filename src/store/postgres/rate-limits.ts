// Rate-limit counts shared by every instance on one database (CONTRACT §12: "on PostgreSQL the limit
// holds across instances"): rate-limiter-flexible's RateLimiterPostgres on the store's own pool. Its
// table is made by migration step 12, so a role without CREATE on the schema can serve with rate limits;
// like calsync_migrations it is bookkeeping outside the schema, which db copy leaves behind (the counts
// of a one-minute window).
import { RateLimiterPostgres } from "rate-limiter-flexible";
import type { PgDatabase } from "./pool.js";
import type { Store } from "../types.js";

/** The table the counts live in. */
export const RATE_LIMITS_TABLE = "calsync_rate_limits";

export type RateLimitQueries = Pick<Store, "sharedRateLimiter">;

/** The shared rate limiter of one database. */
export function rateLimitQueries(db: PgDatabase): RateLimitQueries {
  return {
    sharedRateLimiter: async ({ limit, windowSeconds, keyPrefix = "sync" }) =>
      // storeType "client": the library calls client.query(config) and never asks the pool for a connection.
      // tableCreated: the migrations made the table; the library's own CREATE would need CREATE on the schema.
      new RateLimiterPostgres({
        storeClient: db.client,
        storeType: "client",
        tableName: RATE_LIMITS_TABLE,
        tableCreated: true,
        keyPrefix,
        points: limit,
        duration: windowSeconds,
      }),
  };
}
