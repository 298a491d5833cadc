// The SDK and the CLI against the real calsync server (CONTRACT §14): real store, real feeds on loopback,
// the real h3 app over HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, createClient, NotFoundError, type CalsyncClient } from "../src/sdk/index.js";
import { startApiFixture, type ApiFixture } from "./helpers/api-fixture.js";
import { isBuilt, runBin } from "./helpers/cli.js";
import { day } from "./helpers/ics.js";

let api: ApiFixture;
let client: CalsyncClient;
let loft = "";

beforeAll(async () => {
  if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
  api = await startApiFixture();
  client = createClient({ apiKey: api.tokens.allOk, baseURL: api.url, maxRetries: 0 });
  // Ann gets two more properties, so a page of one walks three pages.
  await api.store.createProperty(api.owners.allOk.id, "Alpine Chalet");
  await api.store.createProperty(api.owners.allOk.id, "Beach Hut");
  loft = (await api.store.listProperties()).find((p) => p.name === "Sea View Loft")!.id;
});
afterAll(async () => { await api?.close(); });

const cli = (argv: string[]) => runBin(argv, { CALSYNC_BASE_URL: api.url, CALSYNC_API_KEY: api.tokens.allOk });

describe("the SDK against calsync serve", () => {
  it("walks every property of the owner, one page at a time", async () => {
    const names: string[] = [];
    for await (const property of client.properties.list({ limit: 1 })) names.push(property.name);
    expect(names).toEqual(["Alpine Chalet", "Beach Hut", "Sea View Loft"]);
  });

  it("puts in a direct stay after refreshing the channels, and lists it with theirs", async () => {
    const stay = await client.reservations.create(loft, { kind: "booking", arrival: day(30), departure: day(33), summary: "Ana" });
    expect(stay).toMatchObject({ source: "direct", kind: "booking", status: "active", arrival: day(30), departure: day(33), summary: "Ana" });
    const seen: string[] = [];
    for await (const r of client.reservations.list(loft, { limit: 2 })) seen.push(`${r.source} ${r.arrival}`);
    expect(seen).toEqual([`airbnb ${day(5)}`, `airbnb ${day(12)}`, `vrbo ${day(20)}`, `direct ${day(30)}`]);
    expect((await client.reservations.cancel(stay.id)).status).toBe("cancelled");
  });

  it("refuses taken nights with ConflictError naming the channel's stay", async () => {
    const error = await client.reservations.create(loft, { kind: "block", arrival: day(6), departure: day(7) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).conflicts).toMatchObject([{ source: "airbnb", arrival: day(5), departure: day(8) }]);
  });

  it("answers a replayed Idempotency-Key with the first stay", async () => {
    const body = { kind: "block" as const, arrival: day(40), departure: day(41) };
    const first = await client.reservations.create(loft, body, { idempotencyKey: "real-1" });
    const again = await client.reservations.create(loft, body, { idempotencyKey: "real-1" });
    expect(again.id).toBe(first.id);
    await client.reservations.cancel(first.id);
  });

  it("gives the nights of [from, to) and hides another owner's property", async () => {
    const availability = await client.properties.availability(loft, { from: day(4), to: day(9) });
    expect(availability.nights.map((n) => n.available)).toEqual([true, false, false, false, true]);
    const bobs = (await api.store.listProperties()).find((p) => p.name === "Harbour Cottage")!.id;
    await expect(client.properties.retrieve(bobs)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("the CLI against calsync serve", () => {
  it("adds and cancels a direct stay, and exits 6 naming the channel when the nights are taken", async () => {
    const added = await cli(["reservation", "add", "--property", loft, "--arrival", day(50), "--departure", day(52), "--json"]);
    expect(added.code, added.stderr).toBe(0);
    const stay = JSON.parse(added.stdout);
    expect(stay).toMatchObject({ source: "direct", arrival: day(50), departure: day(52) });

    const taken = await cli(["reservation", "add", "--property", loft, "--arrival", day(13), "--departure", day(14), "--block"]);
    expect(taken.code).toBe(6);
    expect(taken.stderr).toMatch(new RegExp(`^  airbnb\\s+${day(12)} → ${day(16)}  \\S+$`, "m"));

    const cancelled = await cli(["reservation", "cancel", stay.id]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
  });

  it("prints the Availability with --json and month grids without", async () => {
    const json = await cli(["availability", "--property", loft, "--from", day(20), "--to", day(23), "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).nights.map((n: { available: boolean }) => n.available)).toEqual([false, false, true]);
    const grid = await cli(["availability", "--property", loft, "--from", day(20), "--to", day(23)]);
    expect(grid.code, grid.stderr).toBe(0);
    expect(grid.stdout).toContain(`[${Number(day(20).slice(8))}]`);
    expect(grid.stdout).toMatch(/2 nights taken, 1 free of 3/);
  });
});
