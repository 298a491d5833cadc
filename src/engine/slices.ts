// Work that can run long on a server's event loop (diffing a 43,800-occurrence feed, writing its rows) is
// written once, as a generator that yields now and then: run to its end at once where nothing else waits
// (tests, pure callers), or in slices of a few milliseconds with a turn of the event loop between them, so
// that a server keeps answering /healthz and other owners while it works.

/** Longest a run works before letting the event loop turn, in milliseconds. */
export const SLICE_MS = 8;

/** Runs `steps` to their end at once and returns their result. */
export function runAtOnce<T>(steps: Iterator<unknown, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs `steps` to their end, letting the event loop turn between two of them once SLICE_MS have passed. */
export async function runInSlices<T>(steps: Iterator<unknown, T>): Promise<T> {
  let sliceStarted = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStarted < SLICE_MS) continue;
    await nextTurn();
    sliceStarted = performance.now();
  }
}

/** Resolves after the event loop has turned once (timers, I/O and other requests run meanwhile). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
