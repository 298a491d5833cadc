// Feed hosts that asked calsync to wait (CONTRACT §4, Retry-After), shared by every process on the file.
import type Database from "better-sqlite3";
import type { Store } from "../types.js";
import { writing } from "../write-faults.js";

export type HostBackoffQueries = Pick<Store, "hostBackoffs" | "holdHost">;

/** Prepares the host back-off statements of one database. */
export function hostBackoffQueries(db: Database.Database): HostBackoffQueries {
  const current = db.prepare<[string], { host: string; until: string }>("SELECT host, until FROM host_backoffs WHERE until > ?");
  // ISO times in UTC compare as text; a shorter wait never cuts a longer one short.
  const hold = db.prepare<[string, string]>(
    "INSERT INTO host_backoffs (host, until) VALUES (?, ?) ON CONFLICT (host) DO UPDATE SET until = MAX(until, excluded.until)",
  );
  return {
    async hostBackoffs(now) {
      return current.all(now.toISOString()).map((row) => ({ host: row.host, until: new Date(row.until) }));
    },
    async holdHost(host, until) {
      await writing(() => hold.run(host, until.toISOString()));
    },
  };
}
