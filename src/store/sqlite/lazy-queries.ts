// Most commands touch one group of statements (`calsync owner list`: the owners'), so each group's module is
// loaded, and its statements prepared, on the first call of one of its methods: loading and preparing every
// group at open was about 15–20 ms of a command that takes a hundred.

/** Loads a group's module and prepares its statements; resolves to its methods. */
export type GroupLoader<S> = () => Promise<Partial<S>>;

/**
 * The methods named in `groupOf`, each loading its group (`loaders`) on first call. Calls made while a
 * group loads wait, and then run in the order they were made, so a first call never overtakes an earlier one.
 */
export function lazyMethods<S, G extends string, M extends keyof S & string>(
  loaders: Record<G, GroupLoader<S>>,
  groupOf: Record<M, G>,
): Pick<S, M> {
  const ready = new Map<G, Partial<S>>();
  const loading = new Map<G, Promise<Partial<S>>>();
  const load = (group: G): Promise<Partial<S>> => {
    let pending = loading.get(group);
    if (!pending) {
      pending = loaders[group]().then(
        (methods) => {
          ready.set(group, methods);
          return methods;
        },
        (error: unknown) => {
          loading.delete(group);
          throw error;
        },
      );
      loading.set(group, pending);
    }
    return pending;
  };

  // The tail of the calls queued behind a load; null when none waits.
  let queue: Promise<void> | null = null;
  const methods: Record<string, unknown> = {};
  for (const [name, group] of Object.entries(groupOf) as Array<[M, G]>) {
    const invoke = (loaded: Partial<S>, args: unknown[]) => (loaded[name] as (...args: unknown[]) => Promise<unknown>)(...args);
    methods[name] = (...args: unknown[]) => {
      const loaded = ready.get(group);
      if (loaded && queue === null) return invoke(loaded, args);
      const call = (queue ?? Promise.resolve()).then(async () => invoke(ready.get(group) ?? (await load(group)), args));
      const tail = call.then(
        () => {},
        () => {},
      );
      queue = tail;
      void tail.then(() => {
        if (queue === tail) queue = null;
      });
      return call;
    };
  }
  return methods as Pick<S, M>;
}
