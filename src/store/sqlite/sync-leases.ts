// Who is syncing which owner, until when, and when each owner is next due (CONTRACT §10), across
// every process on the file. Each step is one IMMEDIATE transaction: the write lock is the arbiter.
import type Database from "better-sqlite3";
import { nextScheduleSlot } from "../schedule-slots.js";
import type { LeaseAttempt, Store, SyncLease } from "../types.js";

export type SyncLeaseQueries = Pick<Store,
  "acquireSyncLease" | "renewSyncLease" | "releaseSyncLease" | "syncLease" | "claimScheduledSyncs">;

interface LeaseRow { owner_id: string; run_id: string; holder: string; expires_at: string }

/** Owners with at least one calendar (`s` = a table with `owner_id`). */
const HAS_CALENDARS = `EXISTS (SELECT 1 FROM properties p JOIN calendars c ON c.property_id = p.id WHERE p.owner_id = s.owner_id AND c.source <> 'direct')`;

/** Prepares the lease and schedule statements of one database. */
export function syncLeaseQueries(db: Database.Database): SyncLeaseQueries {
  const live = db.prepare<[string, string], LeaseRow>("SELECT * FROM sync_leases WHERE owner_id = ? AND expires_at > ?");
  const take = db.prepare<[string, string, string, string]>(
    `INSERT INTO sync_leases (owner_id, run_id, holder, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (owner_id) DO UPDATE SET run_id = excluded.run_id, holder = excluded.holder, expires_at = excluded.expires_at`,
  );
  const renew = db.prepare<[string, string, string]>("UPDATE sync_leases SET expires_at = ? WHERE owner_id = ? AND run_id = ?");
  const release = db.prepare<[string, string]>("DELETE FROM sync_leases WHERE owner_id = ? AND run_id = ?");
  // Owners with calendars and no schedule yet; each gets its own slot in the period (schedule-slots.ts).
  const unscheduled = db.prepare<[], { owner_id: string }>(
    `SELECT DISTINCT p.owner_id FROM properties p JOIN calendars c ON c.property_id = p.id
     WHERE c.source <> 'direct' AND NOT EXISTS (SELECT 1 FROM sync_schedule s WHERE s.owner_id = p.owner_id)`,
  );
  const schedule = db.prepare<[string, string]>("INSERT INTO sync_schedule (owner_id, next_run_at) VALUES (?, ?) ON CONFLICT (owner_id) DO NOTHING");
  const due = db.prepare<[string, string], { owner_id: string }>(
    `SELECT s.owner_id FROM sync_schedule s
     WHERE s.next_run_at <= ? AND ${HAS_CALENDARS}
       AND NOT EXISTS (SELECT 1 FROM sync_leases l WHERE l.owner_id = s.owner_id AND l.expires_at > ?)
     ORDER BY s.next_run_at`,
  );
  const reschedule = db.prepare<[string, string]>("UPDATE sync_schedule SET next_run_at = ? WHERE owner_id = ?");

  const acquire = db.transaction((ownerId: string, runId: string, holder: string, ttlMs: number): LeaseAttempt => {
    const now = new Date();
    const current = live.get(ownerId, now.toISOString());
    if (current && current.run_id !== runId) return { acquired: false, lease: toLease(current) };
    take.run(ownerId, runId, holder, new Date(now.getTime() + ttlMs).toISOString());
    return { acquired: true };
  });
  const claim = db.transaction((everyMs: number): string[] => {
    const now = new Date();
    const next = (ownerId: string) => nextScheduleSlot(ownerId, now.getTime(), everyMs).toISOString();
    for (const { owner_id } of unscheduled.all()) schedule.run(owner_id, next(owner_id));
    const owners = due.all(now.toISOString(), now.toISOString()).map((row) => row.owner_id);
    for (const ownerId of owners) reschedule.run(next(ownerId), ownerId);
    return owners;
  });

  return {
    acquireSyncLease: async ({ ownerId, runId, holder, ttlMs }) => acquire.immediate(ownerId, runId, holder, ttlMs),
    renewSyncLease: async ({ ownerId, runId, ttlMs }) =>
      renew.run(new Date(Date.now() + ttlMs).toISOString(), ownerId, runId).changes > 0,
    async releaseSyncLease({ ownerId, runId }) {
      release.run(ownerId, runId);
    },
    async syncLease(ownerId) {
      const row = live.get(ownerId, new Date().toISOString());
      return row && toLease(row);
    },
    claimScheduledSyncs: async ({ everyMs }) => claim.immediate(everyMs),
  };
}

function toLease(row: LeaseRow): SyncLease {
  return { ownerId: row.owner_id, runId: row.run_id, holder: row.holder, expiresAt: row.expires_at };
}
