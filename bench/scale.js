// One owner with N calendars (two per property), run in its own process so its peak
// RSS is this N's alone. Runs, in order: a dry run on the empty store, the first sync (everything
// created), an unchanged re-sync (304s) and a re-sync with 10 % of the feeds changed. The floor runs
// in a process of its own (floor-task), so Node's built-in fetch never weighs on the engine's RSS.
import { syncOwner } from "../dist/engine/sync.js";
import { hostControl, memorySampler, round, seedOwner, tempStore, timed, totals } from "./common.js";
import { EVENTS_PER_FEED, WARM_UP_FEEDS } from "./feeds.js";

/** Runs the scenarios for `n` calendars of feed set `set` at `origins`; returns wall and CPU times and checks. */
export async function runScale({ n, origins, set, changeFraction = 0.1 }) {
  const { store, dispose } = await tempStore();
  try {
    const memory = memorySampler();
    memory.mark("loaded");
    const { ownerId } = await seedOwner(store, { name: "Owner", origins, set, count: n });
    const sync = (extra = {}) => syncOwner({ store, ownerId, allowPrivateNetworks: true, trigger: "cli", ...extra });

    const warm = await seedOwner(store, { name: "Warm-up", origins, set: `${set}-warm`, count: WARM_UP_FEEDS });
    await syncOwner({ store, ownerId: warm.ownerId, allowPrivateNetworks: true });
    memory.mark("seeded");

    const dryRun = await timed(() => sync({ dryRun: true }));
    memory.mark("dryRun");
    await hostControl(origins, "stats", { set, reset: 1 });
    const first = await timed(() => sync());
    memory.mark("first");
    const firstServed = await hostControl(origins, "stats", { set, reset: 1 });
    const unchanged = await timed(() => sync());
    memory.mark("unchanged");
    const unchangedServed = await hostControl(origins, "stats", { set, reset: 1 });
    const { changed: feedsChanged } = await hostControl(origins, "change", { set, count: n, fraction: changeFraction });
    const changed = await timed(() => sync());
    memory.mark("changed");
    const changedServed = await hostControl(origins, "stats", { set, reset: 1 });

    const counts = {
      dryRun: totals(dryRun.value),
      first: totals(first.value),
      unchanged: totals(unchanged.value),
      changed: totals(changed.value),
    };
    const checks = [
      check(counts.dryRun.failed === 0 && counts.dryRun.created === n * EVENTS_PER_FEED, "dry run would create every event"),
      check(counts.first.failed === 0 && counts.first.created === n * EVENTS_PER_FEED, "first sync created every event"),
      check(counts.first.conflicts === 0 && counts.changed.conflicts === 0, "no double booking reported (the feeds have none)"),
      check(firstServed.ok === n, "first sync fetched every body"),
      check(counts.unchanged.failed === 0 && counts.unchanged.changedCalendars === 0, "unchanged re-sync changed nothing"),
      check(unchangedServed.notModified === n, "unchanged re-sync got a 304 for every feed"),
      check(
        counts.changed.failed === 0 && counts.changed.changedCalendars === feedsChanged,
        "changed re-sync changed exactly the changed feeds",
      ),
      check(changedServed.ok === feedsChanged, "changed re-sync fetched only the changed bodies"),
    ];
    const scenario = (t) => ({ ms: round(t.ms, 1), cpuMs: round(t.cpuMs, 1) });
    return {
      n,
      dryRun: scenario(dryRun),
      first: scenario(first),
      unchanged: scenario(unchanged),
      changed: { ...scenario(changed), feedsChanged },
      counts,
      memory: memory.stop(),
      checks,
    };
  } finally {
    await dispose();
  }
}

function check(ok, what) {
  return { ok, what };
}
