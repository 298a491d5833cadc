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
    sharedRateLimiter: async ({ limit, windowSeconds, keyPrefix = "sync" }) => {
      // storeType "client": the library calls client.query(config) and never asks the pool for a connection.
      const options = { storeClient: db.client, storeType: "client", tableName: RATE_LIMITS_TABLE, keyPrefix, points: limit, duration: windowSeconds };
      try {
        return await new Promise<RateLimiterPostgres>((resolve, reject) => {
          const limiter: RateLimiterPostgres = new RateLimiterPostgres(options, (error?: unknown) => (error ? reject(error) : resolve(limiter)));
        });
      } catch (error) {
        // Instances starting together race on CREATE TABLE IF NOT EXISTS: PostgreSQL answers the loser 42710
        // ('type … already exists') or 42P07 ('relation … already exists'), where the library expects only
        // 23505. Either way the table is there now.
        const code = (error as { code?: unknown } | undefined)?.code;
        if (code !== "42710" && code !== "42P07") throw error;
        return new RateLimiterPostgres({ ...options, tableCreated: true });
      }
    },
  };
}
