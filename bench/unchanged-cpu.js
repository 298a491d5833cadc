// Issue 40's per-calendar figure: CPU of an unchanged re-sync (every feed answers 304) through syncOwner, in
// this process, for N calendars on a real SQLite file and on PostgreSQL, with the unchanged calendars'
// bookkeeping batched (the default) and one transaction each (unchangedBatchSize 1) beside it. The feed host
// runs in another process, so only the engine's work (request, answer, bookkeeping) is counted.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { syncOwner } from "../dist/engine/sync.js";
import { openStore } from "../dist/store/index.js";
import { round, seedOwner, tempStore } from "./common.js";
import { startPostgres } from "./instances.js";

/** Targets of issue 40, in CPU milliseconds per unchanged calendar. */
export const UNCHANGED_CPU_TARGETS = { sqlite: 0.3, postgres: 0.5 };

export async function runUnchangedCpu({ origins, n = 1000, set = "unchanged-cpu", rounds = 3 }) {
  const sqlite = await tempStore();
  const dir = mkdtempSync(path.join(os.tmpdir(), "calsync-bench-pg-"));
  let postgres;
  try {
    const results = { sqlite: await measure(sqlite.store, { origins, n, set: `${set}-s`, rounds }) };
    postgres = await startPostgres(dir);
    const store = await openStore(await postgres.database("unchanged_cpu"));
    try {
      results.postgres = await measure(store, { origins, n, set: `${set}-p`, rounds });
    } finally {
      await store.close();
    }
    return Object.fromEntries(Object.entries(results).map(([kind, r]) => [kind, { ...r, targetMs: UNCHANGED_CPU_TARGETS[kind], ok: r.batched <= UNCHANGED_CPU_TARGETS[kind] }]));
  } finally {
    await sqlite.dispose();
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Median CPU ms per calendar of `rounds` unchanged re-syncs, batched and not, after a first sync and one warm-up round. */
async function measure(store, { origins, n, set, rounds }) {
  const { ownerId } = await seedOwner(store, { name: "Owner", origins, set, count: n });
  const sync = (unchangedBatchSize) => syncOwner({ store, ownerId, allowPrivateNetworks: true, unchangedBatchSize });
  // The first sync a hundred calendars at a time: not what is measured, and on a loaded machine a thousand
  // first writes queued at once for PostgreSQL's ten connections wait past its 5 s connect timeout.
  const { calendars } = await store.ownerCalendars(ownerId);
  for (let i = 0; i < calendars.length; i += 100) {
    const calendarIds = new Set(calendars.slice(i, i + 100).map((calendar) => calendar.id));
    const first = await syncOwner({ store, ownerId, allowPrivateNetworks: true, calendarIds });
    if (first.failed > 0) throw new Error(`unchanged-cpu: ${first.failed} first syncs failed: ${JSON.stringify(first.results.find((entry) => !entry.ok))}`);
  }
  await sync();
  const per = async (unchangedBatchSize) => {
    const samples = [];
    for (let i = 0; i < rounds; i++) {
      const cpu0 = process.cpuUsage();
      const response = await sync(unchangedBatchSize);
      const cpu = process.cpuUsage(cpu0);
      if (response.failed > 0 || response.results.some((entry) => entry.result.reservationsCreated + entry.result.reservationsUpdated > 0)) {
        throw new Error("unchanged-cpu: a re-sync was not unchanged");
      }
      samples.push((cpu.user + cpu.system) / 1000 / n);
    }
    return round(samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)], 4);
  };
  return { calendars: n, unbatched: await per(1), batched: await per(undefined) };
}
