// The channel check at scale (issue 40): it reads properties a page at a time, in id order, on both stores, and
// still checks every one of them; after a long check the next waits so that checks take CHECK_SHARE of the time.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/store/index.js";
import { everyProperty, PROPERTY_PAGE } from "../src/store/every-property.js";
import type { Store } from "../src/store/types.js";
import { CHECK_SHARE, checkChannels, LONG_CHECK_MS, nextCheckAfter } from "../src/server/channel-watch.js";
import { sqliteKind, storeKinds } from "./helpers/stores.js";

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  it("pages through every owner's properties once each, in id order", async () => {
    const store = await openStore(await kind.create());
    stores.push(store);
    const made: string[] = [];
    for (const name of ["Ann", "Bob"]) {
      const owner = await store.createOwner(name);
      for (let i = 0; i < 4; i++) made.push((await store.createProperty(owner.id, `${name} ${i}`)).id);
    }
    const first = await store.propertiesAfter(null, 3);
    expect(first).toHaveLength(3);
    const next = await store.propertiesAfter(first[2]!.id, 3);
    expect(next.map((p) => p.id).every((id) => id > first[2]!.id)).toBe(true);
    const seen: string[] = [];
    for await (const property of everyProperty(store, 3)) seen.push(property.id);
    expect(seen).toEqual([...made].sort());
    expect(await store.propertiesAfter(seen[seen.length - 1]!, 3)).toEqual([]);
  });
});

describe("the channel check over more properties than a page", () => {
  const kind = sqliteKind();
  afterAll(() => kind.dispose());

  it("tells every property's never-read link, the last page's too", async () => {
    const store = await openStore(await kind.create());
    try {
      const owner = await store.createOwner("Ann");
      const count = PROPERTY_PAGE * 2 + 1;
      for (let i = 0; i < count; i++) {
        const property = await store.createProperty(owner.id, `Flat ${i}`);
        await store.createCalendar({ propertyId: property.id, source: "booking", url: `https://example.invalid/${i}.ics` });
      }
      const later = new Date(Date.now() + 2 * 86_400_000);
      expect(await checkChannels(store, { staleAfterMs: 3_600_000, now: later })).toBe(count);
      expect(await checkChannels(store, { staleAfterMs: 3_600_000, now: later })).toBe(0);
    } finally {
      await store.close();
    }
  });
});

describe("the time between checks", () => {
  it("is the set interval after a short check, and keeps a long one to its share of the time", () => {
    expect(nextCheckAfter(60_000, 20)).toBe(60_000);
    expect(nextCheckAfter(1000, LONG_CHECK_MS - 1)).toBe(1000);
    const long = nextCheckAfter(60_000, 10_000);
    expect(10_000 / (10_000 + long)).toBeCloseTo(CHECK_SHARE, 10);
    expect(nextCheckAfter(1000, LONG_CHECK_MS)).toBe(LONG_CHECK_MS * (1 / CHECK_SHARE - 1));
  });
});
