// One SQLite connection, shared by every store call of a process. A write too big to run in one go (a
// 20,000-event first sync) keeps its transaction open across event-loop turns so the server keeps
// answering; while it does, no other call may touch the connection, or its statements would land
// inside that transaction. This lock queues them, first come first served.

/** Serialises the calls of one connection around the work that spans event-loop turns. */
export interface ConnectionLock {
  /** Runs `work` at once when nothing holds the connection, else after what holds or waits for it (in order). */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Runs `work` alone on the connection: nothing else starts until the promise it returns settles. */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
}

interface Waiting {
  exclusive: boolean;
  start: () => void;
}

/** Creates the lock of one connection. */
export function createConnectionLock(): ConnectionLock {
  const queue: Waiting[] = [];
  let held = false;

  // Starts what waits, in order: plain calls at once, up to the first exclusive one, which then holds.
  const drain = () => {
    while (!held && queue.length > 0) {
      const next = queue.shift()!;
      if (next.exclusive) held = true;
      next.start();
    }
  };

  const enqueue = <T>(exclusive: boolean, work: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const start = () => {
        let running: Promise<T>;
        try {
          running = work();
        } catch (error) {
          running = Promise.reject(error);
        }
        if (!exclusive) return void running.then(resolve, reject);
        running.then(resolve, reject).finally(() => {
          held = false;
          drain();
        });
      };
      queue.push({ exclusive, start });
      drain();
    });

  return {
    // The common case costs nothing: no queue, no extra promise.
    run: (work) => (held || queue.length > 0 ? enqueue(false, work) : work()),
    exclusive: (work) => enqueue(true, work),
  };
}

/** `store` with every method run through `lock`, except those named in `free` (they never touch a transaction). */
export function lockedMethods<S extends object>(store: S, lock: ConnectionLock, free: ReadonlyArray<keyof S>): S {
  const locked = { ...store };
  for (const [name, value] of Object.entries(store)) {
    if (typeof value !== "function" || free.includes(name as keyof S)) continue;
    const method = value as (...args: unknown[]) => Promise<unknown>;
    (locked as Record<string, unknown>)[name] = (...args: unknown[]) => lock.run(() => method(...args));
  }
  return locked;
}
