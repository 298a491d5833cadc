// The floor as a task of its own process: the same N feed URLs the scale task syncs, fetched with
// plain `fetch` under the engine's limits, after a warm-up on other feeds of the host.
import { feedUrl } from "./feed-host.js";
import { WARM_UP_FEEDS } from "./feeds.js";
import { measureFloor } from "./floor.js";

/**
 * Measures the floor for feeds 0 … n−1 of `set`; `repeat` passes, each reported in milliseconds. The
 * scale series runs one such process per instance: `part` of `parts` takes the feeds of every
 * `parts`-th owner of `perOwner` feeds, as the bench spreads owners over instances; `limits` are the
 * limiter's options (measureFloor's defaults when absent).
 */
export async function runFloor({ n, origins, set, repeat = 1, parts = 1, part = 0, perOwner = n, limits = {} }) {
  const all = Array.from({ length: n }, (_, index) => index);
  const urls = all.filter((index) => Math.floor(index / perOwner) % parts === part).map((index) => feedUrl(origins, set, index));
  const warm = Array.from({ length: WARM_UP_FEEDS }, (_, index) => feedUrl(origins, `${set}-warm`, index));
  await measureFloor(warm, limits);
  const passes = [];
  for (let pass = 0; pass < repeat; pass++) passes.push(await measureFloor(urls, limits));
  return { n, passesMs: passes.map((pass) => Math.round(pass.ms * 10) / 10), failures: passes.reduce((sum, pass) => sum + pass.failures, 0) };
}
