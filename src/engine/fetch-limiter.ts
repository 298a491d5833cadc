// Bounds how many feeds are fetched at once (CONTRACT §4): per owner's run and per process, overall and
// per host. Waiting owners take free slots in turn, so one owner's slow feeds cannot hold back another's.

/** Runs fetch tasks within the process's and each owner's concurrency bounds. */
export interface FetchLimiter {
  /**
   * Runs `task` once a slot is free for `host` in the process and in `owner`'s run; settles as the task
   * does. The slot is handed on before the caller sees the result, so work done with it holds no slot.
   */
  run<T>(host: string, task: () => Promise<T>, owner?: string): Promise<T>;
}

/** Options of `createFetchLimiter`. */
export interface FetchLimiterOptions {
  /** Tasks running at once in the process, over all owners and hosts. @default 16 */
  concurrency?: number;
  /** Tasks running at once in the process against one host. @default 6 */
  perHost?: number;
  /** Tasks of one owner running at once. @default 8 */
  ownerConcurrency?: number;
  /** Tasks of one owner running at once against one host. @default 2 */
  ownerPerHost?: number;
}

/** The contract's defaults (CONTRACT §4). */
export const DEFAULT_FETCH_LIMITS: Required<FetchLimiterOptions> = { concurrency: 16, perHost: 6, ownerConcurrency: 8, ownerPerHost: 2 };

interface Waiting {
  seq: number;
  start: () => void;
}

/** What runs and waits under one key (the process, or one owner). */
interface Slots {
  active: number;
  byHost: Map<string, number>;
}

interface Owner extends Slots {
  /** Waiting tasks by host, each queue in arrival order. */
  waiting: Map<string, Waiting[]>;
  /** When this owner last started a task (a count of starts); -1 before its first. */
  servedAt: number;
}

/** Creates a fair limiter; one instance is shared by every run of a process. */
export function createFetchLimiter(options: FetchLimiterOptions = {}): FetchLimiter {
  const limits = {
    concurrency: positive(options.concurrency, DEFAULT_FETCH_LIMITS.concurrency, "concurrency"),
    perHost: positive(options.perHost, DEFAULT_FETCH_LIMITS.perHost, "perHost"),
    ownerConcurrency: positive(options.ownerConcurrency, DEFAULT_FETCH_LIMITS.ownerConcurrency, "ownerConcurrency"),
    ownerPerHost: positive(options.ownerPerHost, DEFAULT_FETCH_LIMITS.ownerPerHost, "ownerPerHost"),
  };
  const all: Slots = { active: 0, byHost: new Map() };
  const owners = new Map<string, Owner>();
  // Owners with waiting tasks.
  const turn = new Set<string>();
  let seq = 0;
  let starts = 0;

  const room = (slots: Slots, host: string, total: number, perHost: number) =>
    slots.active < total && (slots.byHost.get(host) ?? 0) < perHost;
  const canStart = (owner: Owner, host: string) =>
    room(all, host, limits.concurrency, limits.perHost) && room(owner, host, limits.ownerConcurrency, limits.ownerPerHost);

  // An owner's earliest waiting task whose host has room: a host that is full holds back only its own tasks.
  const pick = (owner: Owner): { host: string; queue: Waiting[] } | undefined => {
    let best: { host: string; queue: Waiting[] } | undefined;
    for (const [host, queue] of owner.waiting) {
      if (canStart(owner, host) && (!best || queue[0]!.seq < best.queue[0]!.seq)) best = { host, queue };
    }
    return best;
  };

  // Each free slot goes to the waiting owner with the fewest fetches running (on a tie, the one served least
  // recently): an owner with many queued feeds cannot take slot after slot while another owner waits.
  const drain = () => {
    while (all.active < limits.concurrency && turn.size > 0) {
      let chosen: { key: string; owner: Owner; host: string; queue: Waiting[] } | undefined;
      for (const key of turn) {
        const owner = owners.get(key)!;
        if (chosen && (owner.active > chosen.owner.active || (owner.active === chosen.owner.active && owner.servedAt >= chosen.owner.servedAt))) continue;
        const next = pick(owner);
        if (next) chosen = { key, owner, ...next };
      }
      if (!chosen) return;
      const { key, owner, host, queue } = chosen;
      const waiting = queue.shift()!;
      if (queue.length === 0) owner.waiting.delete(host);
      if (owner.waiting.size === 0) turn.delete(key);
      waiting.start();
    }
  };

  const ownerOf = (key: string): Owner => {
    let owner = owners.get(key);
    if (!owner) owners.set(key, (owner = { active: 0, byHost: new Map(), waiting: new Map(), servedAt: -1 }));
    return owner;
  };

  return {
    run<T>(host: string, task: () => Promise<T>, ownerKey = ""): Promise<T> {
      const owner = ownerOf(ownerKey);
      return new Promise<T>((resolve, reject) => {
        const start = () => {
          take(all, host);
          take(owner, host);
          owner.servedAt = starts++;
          const release = () => {
            give(all, host);
            give(owner, host);
            if (owner.active === 0 && owner.waiting.size === 0) owners.delete(ownerKey);
            drain();
          };
          let running: Promise<T>;
          try {
            running = Promise.resolve(task());
          } catch (error) {
            running = Promise.reject(error);
          }
          // Release first: the next fetch starts before the caller parses and writes what this one read.
          running.then(
            (value) => {
              release();
              resolve(value);
            },
            (error: unknown) => {
              release();
              reject(error);
            },
          );
        };
        if (turn.size === 0 && canStart(owner, host)) return start();
        const queue = owner.waiting.get(host);
        if (queue) queue.push({ seq: seq++, start });
        else owner.waiting.set(host, [{ seq: seq++, start }]);
        turn.add(ownerKey);
        drain();
      });
    },
  };
}

function take(slots: Slots, host: string): void {
  slots.active++;
  slots.byHost.set(host, (slots.byHost.get(host) ?? 0) + 1);
}

function give(slots: Slots, host: string): void {
  slots.active--;
  const left = (slots.byHost.get(host) ?? 1) - 1;
  if (left === 0) slots.byHost.delete(host);
  else slots.byHost.set(host, left);
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
