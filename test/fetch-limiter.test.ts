// createFetchLimiter: at most N fetches at once, at most M per host, in arrival order.
import { describe, expect, it } from "vitest";
import { createFetchLimiter } from "../src/engine/fetch-limiter.js";

/** A task the test finishes by hand, so what runs at once is decided by the limiter alone. */
function deferred() {
  let resolve!: (value: string) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Counts running tasks, overall and per host, and remembers the peaks. */
function meter() {
  const running = new Map<string, number>();
  let total = 0;
  const peak = { total: 0, perHost: 0 };
  return {
    peak,
    async track<T>(host: string, work: () => Promise<T>): Promise<T> {
      total++;
      running.set(host, (running.get(host) ?? 0) + 1);
      peak.total = Math.max(peak.total, total);
      peak.perHost = Math.max(peak.perHost, running.get(host)!);
      try {
        return await work();
      } finally {
        total--;
        running.set(host, running.get(host)! - 1);
      }
    },
  };
}

describe("createFetchLimiter", () => {
  it("never runs more than 8 fetches at once, nor more than 2 per host, by default", async () => {
    const limiter = createFetchLimiter();
    const m = meter();
    const hosts = Array.from({ length: 10 }, (_, i) => `host${i}.example`);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        limiter.run(hosts[i % hosts.length]!, () =>
          m.track(hosts[i % hosts.length]!, async () => {
            for (let k = 0; k < (i % 4) + 1; k++) await settle();
            return i;
          }),
        ),
      ),
    );
    expect(results).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(m.peak.total).toBe(8);
    expect(m.peak.perHost).toBe(2);
  });

  it("honours configured bounds", async () => {
    const limiter = createFetchLimiter({ concurrency: 3, perHost: 1 });
    const m = meter();
    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        limiter.run(`h${i % 4}`, () => m.track(`h${i % 4}`, async () => void (await settle()))),
      ),
    );
    expect(m.peak).toEqual({ total: 3, perHost: 1 });
  });

  it("starts a host's queued fetches in arrival order", async () => {
    const limiter = createFetchLimiter({ perHost: 1 });
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, () => deferred());
    const runs = gates.map((gate, i) =>
      limiter.run("airbnb.com", () => {
        started.push(i);
        return gate.promise;
      }),
    );
    for (const gate of gates) {
      await settle();
      gate.resolve("done");
    }
    await Promise.all(runs);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it("does not hold back another host behind a busy one", async () => {
    const limiter = createFetchLimiter({ concurrency: 4, perHost: 2 });
    const busy = deferred();
    const started: string[] = [];
    const slow = [1, 2, 3, 4].map((n) =>
      limiter.run("slow.example", () => {
        started.push(`slow${n}`);
        return busy.promise;
      }),
    );
    const other = limiter.run("fast.example", async () => {
      started.push("fast");
      return "fast done";
    });
    await expect(other).resolves.toBe("fast done");
    expect(started).toEqual(["slow1", "slow2", "fast"]);
    busy.resolve("ok");
    await Promise.all(slow);
    expect(started).toHaveLength(5);
  });

  it("bounds two concurrent runs sharing one limiter together", async () => {
    const limiter = createFetchLimiter({ concurrency: 2, perHost: 2 });
    const m = meter();
    const oneRun = (name: string) =>
      Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          limiter.run(`${name}-${i}`, () => m.track(`${name}-${i}`, async () => void (await settle()))),
        ),
      );
    await Promise.all([oneRun("a"), oneRun("b")]);
    expect(m.peak.total).toBe(2);
  });

  it("passes a task's failure to its caller and frees the slot", async () => {
    const limiter = createFetchLimiter({ concurrency: 1 });
    const failing = limiter.run("h", async () => {
      throw new Error("boom");
    });
    const throwingSync = limiter.run("h", () => {
      throw new Error("sync boom");
    });
    const next = limiter.run("h", async () => "still runs");
    await expect(failing).rejects.toThrow("boom");
    await expect(throwingSync).rejects.toThrow("sync boom");
    await expect(next).resolves.toBe("still runs");
  });

  it("hands free slots to waiting owners in turn, not to the owner that queued first", async () => {
    const limiter = createFetchLimiter({ concurrency: 2 });
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const queue = (owner: string, n: number) =>
      Array.from({ length: n }, (_, i) => {
        const name = `${owner}${i}`;
        gates.set(name, deferred());
        return limiter.run(`${owner}-host${i}`, () => {
          started.push(name);
          return gates.get(name)!.promise;
        }, owner);
      });
    const runs = [...queue("x", 5), ...queue("y", 2), ...queue("z", 2)];
    await settle();
    expect(started).toEqual(["x0", "x1"]);
    // Each freed slot goes to the next owner in turn: y, z, x, y, z, then x's rest.
    for (let i = 0; started.length < 9; i++) {
      gates.get(started[i]!)!.resolve("done");
      await settle();
    }
    expect(started).toEqual(["x0", "x1", "y0", "z0", "x2", "y1", "z1", "x3", "x4"]);
    for (const gate of gates.values()) gate.resolve("done");
    await Promise.all(runs);
  });

  it("keeps each owner within its own bounds while others use the rest", async () => {
    const limiter = createFetchLimiter({ concurrency: 16, perHost: 6, ownerConcurrency: 3, ownerPerHost: 2 });
    const m = meter();
    const perOwner = new Map<string, ReturnType<typeof meter>>();
    await Promise.all(
      ["a", "b", "c"].flatMap((owner) =>
        Array.from({ length: 12 }, (_, i) => {
          const host = `h${i % 2}`;
          const own = perOwner.get(owner) ?? perOwner.set(owner, meter()).get(owner)!;
          return limiter.run(host, () => m.track(host, () => own.track(host, async () => {
            for (let k = 0; k < (i % 3) + 1; k++) await settle();
          })), owner);
        }),
      ),
    );
    expect(m.peak).toEqual({ total: 9, perHost: 6 });
    for (const own of perOwner.values()) expect(own.peak).toEqual({ total: 3, perHost: 2 });
  });

  it("hands the slot on before the caller sees the result", async () => {
    const limiter = createFetchLimiter({ concurrency: 1 });
    const order: string[] = [];
    const first = limiter.run("h", async () => "first").then(() => order.push("first's caller"));
    const second = limiter.run("h", async () => void order.push("second started"));
    await Promise.all([first, second]);
    expect(order).toEqual(["second started", "first's caller"]);
  });

  it("refuses bounds that are not positive integers", () => {
    expect(() => createFetchLimiter({ concurrency: 0 })).toThrow(RangeError);
    expect(() => createFetchLimiter({ perHost: 1.5 })).toThrow(RangeError);
  });
});
