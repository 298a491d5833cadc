// Feed hosts that asked calsync to wait (CONTRACT §4, Retry-After), shared by every instance on the database.
import type { PgDatabase } from "./pool.js";
import type { Store } from "../types.js";
import { writing } from "../write-faults.js";

export type HostBackoffQueries = Pick<Store, "hostBackoffs" | "holdHost">;

/** The host back-off queries of one database. */
export function hostBackoffQueries(db: PgDatabase): HostBackoffQueries {
  return {
    async hostBackoffs(now) {
      const rows = await db.query<{ host: string; until: string }>("SELECT host, until FROM host_backoffs WHERE until > $1", [now.toISOString()]);
      return rows.map((row) => ({ host: row.host, until: new Date(row.until) }));
    },
    async holdHost(host, until) {
      // A shorter wait never cuts a longer one short.
      await writing(() =>
        db.run(
          `INSERT INTO host_backoffs (host, until) VALUES ($1, $2)
           ON CONFLICT (host) DO UPDATE SET until = GREATEST(host_backoffs.until, excluded.until)`,
          [host, until.toISOString()],
        ),
      );
    },
  };
}
