// Two requests for overlapping nights at the same moment (CONTRACT §14): exactly one is stored, 50 times over,
// on one SQLite server and across two real `calsync serve` instances on one PostgreSQL database.
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import { isBuilt } from "./helpers/cli.js";
import { buildIcs, day } from "./helpers/ics.js";
import { startServe, type ServeProcess } from "./helpers/processes.js";
import { ownerWith, useServerFixtures } from "./helpers/server-fixtures.js";
import { postgresKind } from "./helpers/stores.js";

const TRIALS = 50;

/** Races two overlapping stays per trial, one to each base URL; answers each trial's statuses, sorted. */
async function race(baseUrls: [string, string], token: string, propertyId: string, refresh: boolean): Promise<number[][]> {
  const outcomes: number[][] = [];
  for (let i = 0; i < TRIALS; i++) {
    const first = 20 + i * 4;
    const post = (url: string, arrival: number, departure: number) =>
      fetch(`${url}/api/v1/properties/${propertyId}/reservations`, {
        method: "POST",
        headers: { "x-api-key": token, "content-type": "application/json" },
        body: JSON.stringify({ kind: "booking", arrival: day(arrival), departure: day(departure), refresh }),
      }).then((res) => res.status);
    outcomes.push((await Promise.all([post(baseUrls[0], first, first + 2), post(baseUrls[1], first + 1, first + 3)])).sort());
  }
  return outcomes;
}

const directCount = async (store: Store, propertyId: string) =>
  (await store.listReservations({ propertyId, status: "active" })).filter((r) => r.source === "direct").length;

describe("two overlapping direct stays at once on one SQLite server", () => {
  const { newStore, serve, feed } = useServerFixtures();
  it("store exactly one of each pair, 50 times, each after refreshing the channel", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed({ body: buildIcs([{ uid: "a", start: day(2), end: day(4) }]) }) }] });
    const server = await serve(store, { apiRateLimit: null });
    const loft = ann.propertyIds.Loft!;
    const outcomes = await race([server.url, server.url], ann.token, loft, true);
    expect(outcomes).toEqual(Array.from({ length: TRIALS }, () => [201, 409]));
    expect(await directCount(store, loft)).toBe(TRIALS);
  });
});

describe("two overlapping direct stays at once on two calsync serve instances sharing PostgreSQL", () => {
  const kind = postgresKind();
  const instances: ServeProcess[] = [];
  const stores: Store[] = [];
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    for (const store of stores) await store.close();
    await kind.dispose();
  });

  it("store exactly one of each pair, 50 times", async () => {
    if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
    const url = await kind.create();
    const store = await openStore(url);
    stores.push(store);
    const ann = await ownerWith(store, "Ann", { Loft: [] });
    const args = ["--db", url, "--api-rate-limit", "0"];
    instances.push(...(await Promise.all([startServe(args), startServe(args)])));
    const loft = ann.propertyIds.Loft!;
    const outcomes = await race([instances[0]!.url, instances[1]!.url], ann.token, loft, false);
    expect(outcomes).toEqual(Array.from({ length: TRIALS }, () => [201, 409]));
    expect(await directCount(store, loft)).toBe(TRIALS);
  }, 120_000);
});
