// Who is syncing which owner, until when, and when each owner is next due (CONTRACT §10), across every
// instance on the database. Times are the database's (clock_timestamp()), so instances on machines whose
// clocks disagree still agree on when a lease lapses.
import type { PgDatabase } from "./pool.js";
import type { LeaseAttempt, Store, SyncLease } from "../types.js";

export type SyncLeaseQueries = Pick<Store,
  "acquireSyncLease" | "renewSyncLease" | "releaseSyncLease" | "syncLease" | "claimScheduledSyncs">;

interface LeaseRow { owner_id: string; run_id: string; holder: string; expires_at: string }

const IN_MS = (param: string) => `clock_timestamp() + ${param}::int * interval '1 millisecond'`;

// Taken when free or lapsed; the row lock of ON CONFLICT makes two instances' attempts one after the other.
const TAKE = `
  INSERT INTO sync_leases (owner_id, run_id, holder, expires_at) VALUES ($1, $2, $3, ${IN_MS("$4")})
  ON CONFLICT (owner_id) DO UPDATE SET run_id = excluded.run_id, holder = excluded.holder, expires_at = excluded.expires_at
  WHERE sync_leases.expires_at <= clock_timestamp() OR sync_leases.run_id = excluded.run_id`;
const LIVE = "SELECT * FROM sync_leases WHERE owner_id = $1 AND expires_at > clock_timestamp()";
// The owner's first slot after half a period from now (nextScheduleSlot, the same arithmetic): its offset into
// the period is the first 32 bits of md5(owner id) modulo the period, so owners first seen together come due apart.
const NEXT_SLOT = (owner: string) => `(SELECT to_timestamp((t + (((('x' || substr(md5(${owner}), 1, 8))::bit(32)::bigint % $1) - t % $1) % $1 + $1) % $1) / 1000.0)
  FROM (SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint + $1 / 2 + 1 AS t) AS n)`;
// Owners with calendars get a schedule row, due at their next slot; ordered, so that two instances inserting at
// once take row locks in the same order and never deadlock.
const NOTICE = `
  INSERT INTO sync_schedule (owner_id, next_run_at)
  SELECT o.owner_id, ${NEXT_SLOT("o.owner_id")}
  FROM (SELECT DISTINCT p.owner_id FROM properties p JOIN calendars c ON c.property_id = p.id WHERE c.source <> 'direct') AS o
  ORDER BY 1
  ON CONFLICT (owner_id) DO NOTHING`;
// SKIP LOCKED: an instance never waits for another's claim; a row it skips is that instance's this period.
const CLAIM = `
  UPDATE sync_schedule s SET next_run_at = ${NEXT_SLOT("s.owner_id")}
  WHERE s.owner_id IN (
    SELECT d.owner_id FROM sync_schedule d
    WHERE d.next_run_at <= clock_timestamp()
      AND EXISTS (SELECT 1 FROM properties p JOIN calendars c ON c.property_id = p.id WHERE p.owner_id = d.owner_id AND c.source <> 'direct')
      AND NOT EXISTS (SELECT 1 FROM sync_leases l WHERE l.owner_id = d.owner_id AND l.expires_at > clock_timestamp())
    ORDER BY d.next_run_at
    FOR UPDATE SKIP LOCKED)
  RETURNING s.owner_id`;

/** The lease and schedule queries of one database. */
export function syncLeaseQueries(db: PgDatabase): SyncLeaseQueries {
  const live = async (ownerId: string) => (await db.query<LeaseRow>(LIVE, [ownerId]))[0];

  return {
    async acquireSyncLease({ ownerId, runId, holder, ttlMs }): Promise<LeaseAttempt> {
      // Released between the two statements: try again rather than report a lease nobody holds.
      for (;;) {
        if ((await db.run(TAKE, [ownerId, runId, holder, Math.ceil(ttlMs)])) > 0) return { acquired: true };
        const current = await live(ownerId);
        if (current) return { acquired: false, lease: toLease(current) };
      }
    },
    renewSyncLease: async ({ ownerId, runId, ttlMs }) =>
      (await db.urgent.run(`UPDATE sync_leases SET expires_at = ${IN_MS("$3")} WHERE owner_id = $1 AND run_id = $2`, [
        ownerId, runId, Math.ceil(ttlMs),
      ])) > 0,
    async releaseSyncLease({ ownerId, runId }) {
      await db.run("DELETE FROM sync_leases WHERE owner_id = $1 AND run_id = $2", [ownerId, runId]);
    },
    async syncLease(ownerId) {
      const row = await live(ownerId);
      return row && toLease(row);
    },
    async claimScheduledSyncs({ everyMs }) {
      await db.run(NOTICE, [Math.ceil(everyMs)]);
      return (await db.query<{ owner_id: string }>(CLAIM, [Math.ceil(everyMs)])).map((row) => row.owner_id);
    },
  };
}

function toLease(row: LeaseRow): SyncLease {
  return { ownerId: row.owner_id, runId: row.run_id, holder: row.holder, expiresAt: row.expires_at };
}
