// When each periodic task (the channel check) is next due, so that one process on the file runs it per
// period (CONTRACT §10, §17). A claim is one IMMEDIATE transaction: the write lock is the arbiter.
import type Database from "better-sqlite3";
import type { PeriodicClaim, Store } from "../types.js";

export type PeriodicTaskQueries = Pick<Store, "claimPeriodicTask" | "schedulePeriodicTask">;

/** Prepares the periodic task statements of one database. */
export function periodicTaskQueries(db: Database.Database): PeriodicTaskQueries {
  const nextAt = db.prepare<[string], { next_at: string }>("SELECT next_at FROM periodic_tasks WHERE name = ?");
  const setNext = db.prepare<[string, string]>(
    "INSERT INTO periodic_tasks (name, next_at) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET next_at = excluded.next_at",
  );
  const claim = db.transaction((name: string, holdMs: number): PeriodicClaim => {
    const now = Date.now();
    const row = nextAt.get(name);
    const dueInMs = row ? Date.parse(row.next_at) - now : 0;
    if (dueInMs > 0) return { claimed: false, dueInMs };
    setNext.run(name, new Date(now + holdMs).toISOString());
    return { claimed: true };
  });
  return {
    claimPeriodicTask: async ({ name, holdMs }) => claim.immediate(name, holdMs),
    async schedulePeriodicTask({ name, inMs }) {
      setNext.run(name, new Date(Date.now() + inMs).toISOString());
    },
  };
}
