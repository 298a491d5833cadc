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
  // Urgent waiters first: the first `urgentWaiting` of the queue.
  const waiters: Array<{ resolve: () => void; reject: (error: unknown) => void; urgent: boolean }> = [];
  let urgentWaiting = 0;

  // A new window starts at each place that comes free, so a long queue that moves never times out.
  const rearm = () => {
    clearTimeout(timer);
    timer = undefined;
    if (waiters.length === 0 || asking) return;
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
        else {
          urgentWaiting = 0;
          for (const waiter of waiters.splice(0)) waiter.reject(error);
        }
      },
    );
  };

  return {
    enter(urgent = false) {
      if (opened || (inUse < size && waiters.length === 0)) {
        inUse++;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const waiter = { resolve, reject, urgent };
        if (urgent) waiters.splice(urgentWaiting++, 0, waiter);
        else waiters.push(waiter);
        if (waiters.length === 1) rearm();
      });
    },
    leave() {
      inUse--;
      freed++;
      const next = waiters.shift();
      if (next) {
        if (next.urgent) urgentWaiting--;
        inUse++;
        next.resolve();
      }
      rearm();
    },
    open() {
      opened = true;
      clearTimeout(timer);
      urgentWaiting = 0;
      for (const waiter of waiters.splice(0)) {
        inUse++;
        waiter.resolve();
      }
    },
  };
}
