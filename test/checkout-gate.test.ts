// The PostgreSQL pool's wait for a free connection (src/store/postgres/checkout-gate.ts): first come first
// served, as long as places come free; when none has for a while, the database is asked, and the waiters
// fail only with its own "cannot be reached".
import { describe, expect, it } from "vitest";
import { createCheckoutGate } from "../src/store/postgres/checkout-gate.js";
import { StoreUnavailableError } from "../src/store/errors.js";

const STALL_MS = 20;

describe("the pool's checkout gate", () => {
  it("serves waiters in order as places come free, and never more than its size at once", async () => {
    const gate = createCheckoutGate({ size: 2, stallMs: 60_000, stalled: async () => {} });
    const order: number[] = [];
    await gate.enter();
    await gate.enter();
    const waiting = [3, 4, 5].map((n) => gate.enter().then(() => order.push(n)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    gate.leave();
    await waiting[0];
    gate.leave();
    gate.leave();
    await Promise.all(waiting);
    expect(order).toEqual([3, 4, 5]);
  });

  it("lets an urgent checkout (a lease renewal, the health check) go before every queued one", async () => {
    const gate = createCheckoutGate({ size: 1, stallMs: 60_000, stalled: async () => {} });
    const order: string[] = [];
    await gate.enter();
    const waiting = [
      gate.enter().then(() => order.push("write 1")),
      gate.enter().then(() => order.push("write 2")),
      gate.enter(true).then(() => order.push("renewal")),
      gate.enter(true).then(() => order.push("ping")),
      gate.enter().then(() => order.push("write 3")),
    ];
    for (let i = 0; i < waiting.length; i++) {
      gate.leave();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waiting);
    expect(order).toEqual(["renewal", "ping", "write 1", "write 2", "write 3"]);
  });

  it("keeps a waiter waiting while the database answers, however long the places stay busy", async () => {
    let asked = 0;
    const gate = createCheckoutGate({ size: 1, stallMs: STALL_MS, stalled: async () => void asked++ });
    await gate.enter();
    let entered = false;
    const waiter = gate.enter().then(() => (entered = true));
    // Several stall windows pass, each answered: still waiting, not failed.
    while (asked < 3) await new Promise((resolve) => setTimeout(resolve, STALL_MS));
    expect(entered).toBe(false);
    gate.leave();
    await waiter;
    expect(entered).toBe(true);
  });

  it("fails every waiter with the database's own error once it does not answer, and serves the next comers", async () => {
    const gone = new StoreUnavailableError("cannot reach PostgreSQL at 127.0.0.1:1: timed out");
    let answering = false;
    const gate = createCheckoutGate({ size: 1, stallMs: STALL_MS, stalled: async () => {
      if (!answering) throw gone;
    } });
    await gate.enter();
    const waiters = [gate.enter(), gate.enter()];
    for (const waiter of waiters) await expect(waiter).rejects.toBe(gone);
    answering = true;
    gate.leave();
    await expect(gate.enter()).resolves.toBeUndefined();
  });

  it("keeps waiting when a place came free while the database was being asked", async () => {
    let answer: (() => void) | undefined;
    const gone = new StoreUnavailableError("cannot reach PostgreSQL at 127.0.0.1:1: timed out");
    const gate = createCheckoutGate({ size: 1, stallMs: STALL_MS, stalled: () => new Promise<void>((_, reject) => (answer = () => reject(gone))) });
    await gate.enter();
    const first = gate.enter();
    let secondSettled = false;
    const second = gate.enter().then(() => (secondSettled = true), () => (secondSettled = true));
    while (!answer) await new Promise((resolve) => setTimeout(resolve, STALL_MS));
    gate.leave();
    await first;
    answer();
    await new Promise((resolve) => setImmediate(resolve));
    // The queue moved during the question: its answer does not fail the one still waiting.
    expect(secondSettled).toBe(false);
    gate.leave();
    await second;
    expect(secondSettled).toBe(true);
  });

  it("lets every waiter through once opened (the pool is ending and answers them itself)", async () => {
    const gate = createCheckoutGate({ size: 1, stallMs: 60_000, stalled: async () => {} });
    await gate.enter();
    const waiters = [gate.enter(), gate.enter()];
    gate.open();
    await expect(Promise.all(waiters)).resolves.toEqual([undefined, undefined]);
  });
});
