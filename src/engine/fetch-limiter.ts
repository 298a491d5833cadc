// Bounds how many feeds are fetched at once, overall and per host (CONTRACT §4), in arrival order.

/** Runs fetch tasks within a global and a per-host concurrency bound. */
export interface FetchLimiter {
  /** Runs `task` once a global slot and a slot for `host` are free; settles as the task does. */
  run<T>(host: string, task: () => Promise<T>): Promise<T>;
}

/** Options of `createFetchLimiter`. */
export interface FetchLimiterOptions {
  /** Tasks running at once, over all hosts. @default 8 */
  concurrency?: number;
  /** Tasks running at once against one host. @default 2 */
  perHost?: number;
}

interface Waiting {
  host: string;
  start: () => void;
}

/** Creates a FIFO limiter; one instance may be shared by concurrent sync runs. */
export function createFetchLimiter(options: FetchLimiterOptions = {}): FetchLimiter {
  const concurrency = positive(options.concurrency, 8, "concurrency");
  const perHost = positive(options.perHost, 2, "perHost");
  const queue: Waiting[] = [];
  const activeByHost = new Map<string, number>();
  let active = 0;

  const canStart = (host: string) => active < concurrency && (activeByHost.get(host) ?? 0) < perHost;

  // Start, in arrival order, every waiting task whose host has room; a task blocked only by its
  // host must not hold back tasks for other hosts behind it.
  const drain = () => {
    for (let i = 0; i < queue.length && active < concurrency; ) {
      const waiting = queue[i]!;
      if (canStart(waiting.host)) {
        queue.splice(i, 1);
        waiting.start();
      } else {
        i++;
      }
    }
  };

  return {
    run<T>(host: string, task: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const start = () => {
          active++;
          activeByHost.set(host, (activeByHost.get(host) ?? 0) + 1);
          const release = () => {
            active--;
            const left = (activeByHost.get(host) ?? 1) - 1;
            if (left === 0) activeByHost.delete(host);
            else activeByHost.set(host, left);
            drain();
          };
          let running: Promise<T>;
          try {
            running = Promise.resolve(task());
          } catch (error) {
            running = Promise.reject(error);
          }
          running.then(resolve, reject).finally(release);
        };
        if (queue.length === 0 && canStart(host)) start();
        else {
          queue.push({ host, start });
          drain();
        }
      });
    },
  };
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
