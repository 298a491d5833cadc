// Peak RSS of a first sync, alone in its process: one owner, N calendars on the feed host, seeded, one
// warm-up sync of other feeds, then the first sync (everything created). run.js compares N = 1000 and
// N = 5000, each in a process of its own, for the RSS growth target.
import { syncOwner } from "../dist/engine/sync.js";
import { memorySampler, seedOwner, tempStore, totals } from "./common.js";
import { EVENTS_PER_FEED, WARM_UP_FEEDS } from "./feeds.js";

/** First sync of `n` calendars of feed set `set`; the process's peak RSS and a check that it created everything. */
export async function runRss({ n, origins, set }) {
  const { store, dispose } = await tempStore();
  try {
    const memory = memorySampler();
    const { ownerId } = await seedOwner(store, { name: "Owner", origins, set, count: n });
    const warm = await seedOwner(store, { name: "Warm-up", origins, set: `${set}-warm`, count: WARM_UP_FEEDS });
    await syncOwner({ store, ownerId: warm.ownerId, allowPrivateNetworks: true });
    memory.mark("seeded");
    const first = totals(await syncOwner({ store, ownerId, allowPrivateNetworks: true }));
    memory.mark("first");
    return {
      n,
      memory: memory.stop(),
      checks: [{ ok: first.failed === 0 && first.created === n * EVENTS_PER_FEED, what: `N=${n}: first sync created every event` }],
    };
  } finally {
    await dispose();
  }
}
