// The store prepares each group of statements on the first call of one of its methods. A call never
// overtakes an earlier one because its group was already loaded and the earlier one's was not.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../src/store/index.js";
import { lazyMethods } from "../src/store/sqlite/lazy-queries.js";
import type { Store } from "../src/store/types.js";

interface Calls {
  a(label: string): Promise<string>;
  b(label: string): Promise<string>;
}

/** A loader that resolves when the test says so. */
function gate<T>(value: T): { load: () => Promise<T>; open: () => void; loads: () => number } {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  let loads = 0;
  return {
    load: async () => {
      loads++;
      await opened;
      return value;
    },
    open: () => release(),
    loads: () => loads,
  };
}

describe("lazyMethods", () => {
  it("loads a group once, on its first call, and runs later calls in the order they were made", async () => {
    const order: string[] = [];
    const groupA = gate<Partial<Calls>>({ a: async (label) => (order.push(`a:${label}`), label) });
    const groupB = gate<Partial<Calls>>({ b: async (label) => (order.push(`b:${label}`), label) });
    const calls = lazyMethods<Calls, "A" | "B", "a" | "b">({ A: groupA.load, B: groupB.load }, { a: "A", b: "B" });

    expect(groupA.loads()).toBe(0);
    groupB.open();
    await calls.b("warm");
    // Group A is still loading when b("2") is made; b("2") must not run before a("1").
    const first = calls.a("1");
    const second = calls.b("2");
    const third = calls.a("3");
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(["b:warm"]);
    groupA.open();
    expect(await Promise.all([first, second, third])).toEqual(["1", "2", "3"]);
    expect(order).toEqual(["b:warm", "a:1", "b:2", "a:3"]);
    expect(groupA.loads()).toBe(1);
    expect(groupB.loads()).toBe(1);
  });

  it("tries a group again after its loading failed", async () => {
    let attempts = 0;
    const calls = lazyMethods<Calls, "A", "a">(
      {
        A: async () => {
          if (++attempts === 1) throw new Error("module not found");
          return { a: async (label: string) => label };
        },
      },
      { a: "A" },
    );
    await expect(calls.a("x")).rejects.toThrow("module not found");
    expect(await calls.a("y")).toBe("y");
  });
});

describe("a freshly opened store", () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "calsync-lazy-"));
    store = await openStore(join(dir, "calsync.db"));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers calls made without waiting for each other as if they ran one after the other", async () => {
    const created = store.createOwner("Ana");
    const listed = store.listOwners();
    const tokens = store.listTokens();
    expect((await listed).map((owner) => owner.name)).toEqual(["Ana"]);
    expect((await created).name).toBe("Ana");
    expect(await tokens).toEqual([]);
  });

  it("lets a call made before close() finish even when its group was still loading", async () => {
    const created = store.createOwner("Ana");
    await store.close();
    expect((await created).name).toBe("Ana");
    store = await openStore(join(dir, "calsync.db"));
    expect((await store.listOwners()).map((owner) => owner.name)).toEqual(["Ana"]);
  });
});
