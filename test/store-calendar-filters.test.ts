// `listCalendars` on SQLite and PostgreSQL with each combination of its filters, and (SQLite) through the
// property's index: the channel check lists one property's calendars for every property, so a listing that
// read every calendar made each check cost properties × calendars.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { calendarFilter } from "../src/store/calendar-filter.js";
import { openStore } from "../src/store/index.js";
import { Database } from "../src/store/sqlite/driver.js";
import type { Store } from "../src/store/types.js";
import { storeKinds, sqliteKind } from "./helpers/stores.js";

describe.each(storeKinds())("$name store", (kind) => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => kind.dispose());

  it("lists by owner, by property, by both and all, with the direct calendar only when asked", async () => {
    const store = await openStore(await kind.create());
    stores.push(store);
    const ann = await store.createOwner("Ann");
    const bob = await store.createOwner("Bob");
    const loft = await store.createProperty(ann.id, "Loft");
    const barn = await store.createProperty(ann.id, "Barn");
    const shed = await store.createProperty(bob.id, "Shed");
    for (const [property, source] of [[loft, "airbnb"], [loft, "booking"], [barn, "vrbo"], [shed, "airbnb"]] as const) {
      await store.createCalendar({ propertyId: property.id, source, url: `https://example.invalid/${property.name}-${source}.ics` });
    }
    const names = async (filter: Parameters<Store["listCalendars"]>[0]) =>
      (await store.listCalendars(filter)).map((c) => `${c.propertyId === loft.id ? "Loft" : c.propertyId === barn.id ? "Barn" : "Shed"}:${c.source}`).sort();
    expect(await names({})).toEqual(["Barn:vrbo", "Loft:airbnb", "Loft:booking", "Shed:airbnb"]);
    expect(await names({ ownerId: ann.id })).toEqual(["Barn:vrbo", "Loft:airbnb", "Loft:booking"]);
    expect(await names({ propertyId: loft.id })).toEqual(["Loft:airbnb", "Loft:booking"]);
    expect(await names({ ownerId: ann.id, propertyId: loft.id })).toEqual(["Loft:airbnb", "Loft:booking"]);
    expect(await names({ ownerId: bob.id, propertyId: loft.id })).toEqual([]);
    const withDirect = await store.listCalendars({ propertyId: loft.id, includeDirect: true });
    expect(withDirect.length).toBeGreaterThanOrEqual(2);
    expect(withDirect.every((c) => c.propertyId === loft.id)).toBe(true);
  });
});

describe("SQLite's plan for one property's calendars", () => {
  const kind = sqliteKind();
  afterAll(() => kind.dispose());

  it("searches the property's index instead of scanning every calendar", async () => {
    const location = await kind.create();
    await (await openStore(location)).close();
    const db = new Database(location, { readonly: true });
    try {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN SELECT c.id FROM calendars c JOIN properties p ON p.id = c.property_id WHERE ${calendarFilter({ owner: false, property: true, direct: false }, () => "?")}`)
        .all("prp_x") as Array<{ detail: string }>;
      expect(plan.map((row) => row.detail).join("\n")).toMatch(/SEARCH c USING INDEX calendars_property/);
    } finally {
      db.close();
    }
  });
});
