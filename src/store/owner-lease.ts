// Single flight per owner across processes and instances (CONTRACT §2 "Concurrency", §10): a run holds the
// owner's lease in the store, renewed while it goes; others wait for it and then read its recorded
// response, or run after it. A holder killed mid-run blocks nobody for longer than the lease.
import { hostname } from "node:os";
import { newId, randomBase62 } from "../ids.js";
import type { SyncResponse } from "../types.js";
import type { Store, SyncLease } from "./types.js";

/** How long a lease lasts without renewal; renewed every third of it. */
export const DEFAULT_LEASE_MS = 15_000;

/** The store methods the lease needs. */
export type LeaseStore = Pick<Store, "acquireSyncLease" | "renewSyncLease" | "releaseSyncLease" | "syncLease" | "syncRunResponse">;

/** What to do when another run of the owner is going. */
export type LeaseMode =
  /** Wait for it and answer its response (the API); run only if it left none. */
  | "join"
  /** Wait for it, then run (`sync --local`: what it reports is its own run). */
  | "after"
  /** Do not run (the schedule: that owner is being synced already). */
  | "if-idle";

/** Options of `runWithOwnerLease`. */
export interface OwnerLeaseOptions {
  store: LeaseStore;
  /** Lease duration in milliseconds. @default DEFAULT_LEASE_MS */
  leaseMs?: number;
  /** Told once when this call starts waiting for another process's run. */
  onWait?: (lease: SyncLease) => void;
}

/** This process, as leases name their holder: host, pid and a random part (pids repeat across machines and restarts). */
export const THIS_PROCESS = `${hostname()}:${process.pid}:${randomBase62(6)}`;

/**
 * Runs `work(runId)` for `ownerId` while holding the owner's lease; `work` must record its run under
 * `runId`. Resolves to the response, or to undefined in "if-idle" mode when another run was going.
 */
export async function runWithOwnerLease(
  options: OwnerLeaseOptions,
  ownerId: string,
  mode: LeaseMode,
  work: (runId: string) => Promise<SyncResponse>,
): Promise<SyncResponse | undefined> {
  const { store } = options;
  const ttlMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  let told = false;
  for (;;) {
    const runId = newId("run");
    const attempt = await store.acquireSyncLease({ ownerId, runId, holder: THIS_PROCESS, ttlMs });
    if (attempt.acquired) return holding(store, { ownerId, runId, ttlMs }, () => work(runId));
    if (mode === "if-idle") return undefined;
    if (!told) options.onWait?.(attempt.lease);
    told = true;
    await leaseEnds(store, ownerId, attempt.lease.runId);
    if (mode === "join") {
      const response = await store.syncRunResponse(attempt.lease.runId);
      if (response) return response;
    }
    // "after", or a run that left no response (it failed, or its process died): take the lease and run.
  }
}

// Renews the lease every third of its life while `work` goes, and gives it up after.
async function holding<T>(store: LeaseStore, lease: { ownerId: string; runId: string; ttlMs: number }, work: () => Promise<T>): Promise<T> {
  // A renewal that fails (the database blinked) is retried at the next beat; the lease outlives two misses.
  const beat = setInterval(() => void store.renewSyncLease(lease).catch(() => {}), Math.max(lease.ttlMs / 3, 10));
  beat.unref();
  try {
    return await work();
  } finally {
    clearInterval(beat);
    await store.releaseSyncLease(lease).catch(() => {});
  }
}

// Polls until run `runId` no longer holds the owner's lease (released, or lapsed because its process died).
async function leaseEnds(store: LeaseStore, ownerId: string, runId: string): Promise<void> {
  for (let pause = 25; ; pause = Math.min(pause * 2, 250)) {
    await new Promise((resolve) => setTimeout(resolve, pause));
    const lease = await store.syncLease(ownerId);
    if (lease?.runId !== runId) return;
  }
}
