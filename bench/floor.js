// The floor no sync tool can beat: fetch every feed URL with plain `fetch` under the very limits the
// engine keeps (our own limiter, 8 at once and 2 per host), reading and discarding the bodies.
import { createFetchLimiter } from "../dist/engine/fetch-limiter.js";

/** Fetches every URL once within the limits; returns wall milliseconds and how many did not answer 200. */
// `ownerConcurrency`/`ownerPerHost` default to the process's: the floor is one run, no owner bounds it less.
export async function measureFloor(urls, { concurrency = 8, perHost = 2, ownerConcurrency = concurrency, ownerPerHost = perHost, timeoutMs = 20_000 } = {}) {
  const limiter = createFetchLimiter({ concurrency, perHost, ownerConcurrency, ownerPerHost });
  let failures = 0;
  const t0 = performance.now();
  await Promise.all(
    urls.map((url) =>
      // Keyed like the engine keys its limiter (URL host with port), so both queue the same way.
      limiter.run(new URL(url).host, async () => {
        try {
          const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
          // Read to the end so the connection returns to the pool, as the engine's fetch does.
          await res.arrayBuffer();
          if (res.status !== 200) failures++;
        } catch {
          failures++;
        }
      }),
    ),
  );
  return { ms: performance.now() - t0, failures };
}
