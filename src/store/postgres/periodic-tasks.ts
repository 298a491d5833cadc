// When each periodic task (the channel check) is next due, so that one instance on the database runs it per
// period (CONTRACT §10, §17). Times are the database's (clock_timestamp()), so instances whose clocks disagree
// still agree on when a task is due; ON CONFLICT's row lock puts two instances' claims one after the other,
// and the second sees the first's next time.
import type { PgDatabase } from "./pool.js";
import type { PeriodicClaim, Store } from "../types.js";

export type PeriodicTaskQueries = Pick<Store, "claimPeriodicTask" | "schedulePeriodicTask">;

const IN_MS = (param: string) => `clock_timestamp() + ${param}::int * interval '1 millisecond'`;

const CLAIM = `
  INSERT INTO periodic_tasks (name, next_at) VALUES ($1, ${IN_MS("$2")})
  ON CONFLICT (name) DO UPDATE SET next_at = excluded.next_at WHERE periodic_tasks.next_at <= clock_timestamp()`;
const DUE_IN = `
  SELECT GREATEST(0, extract(epoch FROM next_at - clock_timestamp()) * 1000)::float8 AS due_in_ms
  FROM periodic_tasks WHERE name = $1`;
const SCHEDULE = `
  INSERT INTO periodic_tasks (name, next_at) VALUES ($1, ${IN_MS("$2")})
  ON CONFLICT (name) DO UPDATE SET next_at = excluded.next_at`;

/** The periodic task queries of one database. */
export function periodicTaskQueries(db: PgDatabase): PeriodicTaskQueries {
  return {
    async claimPeriodicTask({ name, holdMs }): Promise<PeriodicClaim> {
      if ((await db.run(CLAIM, [name, Math.ceil(holdMs)])) > 0) return { claimed: true };
      // Come due between the two statements: 0, and the caller claims again.
      const [row] = await db.query<{ due_in_ms: number }>(DUE_IN, [name]);
      return { claimed: false, dueInMs: Math.ceil(row?.due_in_ms ?? 0) };
    },
    async schedulePeriodicTask({ name, inMs }) {
      await db.run(SCHEDULE, [name, Math.ceil(inMs)]);
    },
  };
}
