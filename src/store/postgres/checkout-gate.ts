// The wait for a free pooled connection, apart from opening one. node-postgres' pool times both with one
// limit (connectionTimeoutMillis), so a query queued behind ten busy connections for 5 s failed as if the
// database were out of reach (issue 40: owners' syncs answered 503 under load). Here a waiter waits as long
// as the pool's connections are coming free; only when none has for `stallMs` is the database asked
// directly (`stalled`), and the waiters fail with its answer when it does not answer.

/** At most `size` checkouts at a time, first come first served. */
export interface CheckoutGate {
  /**
   * Resolves once a place is free (rejects with `stalled`'s error when the database no longer answers). An
   * `urgent` checkout goes before every other waiter (urgent ones among themselves first come first served).
   */
  enter(urgent?: boolean): Promise<void>;
  /** Gives a place back. */
  leave(): void;
  /** Lets every waiter through at once (the pool is ending: its own error answers them). */
  open(): void;
}

export interface CheckoutGateOptions {
  size: number;
  /** How long waiters wait without any place coming free before the database is asked. */
  stallMs: number;
  /** Resolves when the database answers; rejects with what the waiters should fail with when it does not. */
  stalled: () => Promise<void>;
}

export function createCheckoutGate({ size, stallMs, stalled }: CheckoutGateOptions): CheckoutGate {
  let inUse = 0;
  let opened = false;
  let asking = false;
  let timer: NodeJS.Timeout | undefined;
  /** Places given back so far: one given back while the database was asked means the queue moves after all. */
  let freed = 0;
  type Waiter = { resolve: () => void; reject: (error: unknown) => void };
  // Urgent waiters are served before the others, each queue first come first served.
  const urgentWaiters: Waiter[] = [];
  const waiters: Waiter[] = [];
  const waiting = () => urgentWaiters.length + waiters.length;
  const takeAll = () => [...urgentWaiters.splice(0), ...waiters.splice(0)];

  // A new window starts at each place that comes free, so a long queue that moves never times out.
  const rearm = () => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting() === 0 || asking) return;
    timer = setTimeout(ask, stallMs);
    timer.unref();
  };
  const ask = () => {
    timer = undefined;
    asking = true;
    const before = freed;
    stalled().then(
      () => {
        asking = false;
        rearm();
      },
      (error: unknown) => {
        asking = false;
        if (freed !== before) rearm();
        else for (const waiter of takeAll()) waiter.reject(error);
      },
    );
  };

  return {
    enter(urgent = false) {
      if (opened || (inUse < size && waiting() === 0)) {
        inUse++;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        (urgent ? urgentWaiters : waiters).push({ resolve, reject });
        if (waiting() === 1) rearm();
      });
    },
    leave() {
      inUse--;
      freed++;
      const next = urgentWaiters.shift() ?? waiters.shift();
      if (next) {
        inUse++;
        next.resolve();
      }
      rearm();
    },
    open() {
      opened = true;
      clearTimeout(timer);
      for (const waiter of takeAll()) {
        inUse++;
        waiter.resolve();
      }
    },
  };
}
