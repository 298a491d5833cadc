// Rate-limit counts shared by every instance on one database (CONTRACT §12: "on PostgreSQL the limit
// holds across instances"): rate-limiter-flexible's RateLimiterPostgres on the store's own pool. Its
// table is the library's, made by the library on first use; like calsync_migrations it is bookkeeping
// outside the schema, which db copy leaves behind (the counts of a one-minute window).
import { RateLimiterPostgres } from "rate-limiter-flexible";
import type { PgDatabase } from "./pool.js";
import type { Store } from "../types.js";

/** The table the counts live in. */
export const RATE_LIMITS_TABLE = "calsync_rate_limits";

export type RateLimitQueries = Pick<Store, "sharedRateLimiter">;

/** The shared rate limiter of one database. */
export function rateLimitQueries(db: PgDatabase): RateLimitQueries {
  return {
    sharedRateLimiter: ({ limit, windowSeconds }) =>
      new Promise((resolve, reject) => {
        // storeType "client": the library calls client.query(config) and never asks the pool for a connection.
        const limiter: RateLimiterPostgres = new RateLimiterPostgres(
          { storeClient: db.client, storeType: "client", tableName: RATE_LIMITS_TABLE, keyPrefix: "sync", points: limit, duration: windowSeconds },
          (error?: unknown) => (error ? reject(error) : resolve(limiter)),
        );
      }),
  };
}
