// The SDK's resources in a non-Node runtime (Vercel's Edge Runtime VM, web globals only): pages walked with
// for await, a write's Idempotency-Key made from the runtime's own crypto, and ConflictError from its classes.
import { EdgeVM } from "@edge-runtime/vm";
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as Sdk from "../src/sdk/index.js";
import { day } from "./helpers/ics.js";
import { STUB_KEY } from "./helpers/resource-fixtures.js";
import { startResourceApiStub, type ResourceApiStub } from "./helpers/resource-api-stub.js";

const root = fileURLToPath(new URL("..", import.meta.url));
let api: ResourceApiStub;
let sdk: typeof Sdk;

beforeAll(async () => {
  api = await startResourceApiStub();
  const { outputFiles } = await build({
    absWorkingDir: root, entryPoints: ["src/sdk/index.ts"], bundle: true, platform: "browser", format: "iife",
    globalName: "calsync", write: false, logLevel: "silent",
  });
  const edge = new EdgeVM();
  edge.evaluate(outputFiles[0]!.text);
  sdk = edge.evaluate<typeof Sdk>("calsync");
});
afterAll(async () => { await api?.close(); });

describe("SDK resources in the Edge Runtime", () => {
  it("walks every page with for await, writes with a random key, and throws its own ConflictError", async () => {
    const client = sdk.createClient({ apiKey: STUB_KEY, baseURL: api.url, maxRetries: 0 });
    const ids: string[] = [];
    for await (const r of client.reservations.list("prp_sea", { limit: 4 })) ids.push(r.id);
    expect(ids).toEqual(["res_01", "res_02", "res_03", "res_04", "res_05", "res_06", "res_07"]);

    const stay = await client.reservations.create("prp_sea", { kind: "block", arrival: day(60), departure: day(61) });
    expect(stay.source).toBe("direct");
    expect(api.requests.at(-1)!.headers["idempotency-key"]).toMatch(/^calsync-sdk-[0-9a-f]{32}$/);

    const refused = await client.reservations.create("prp_sea", { kind: "block", arrival: day(3), departure: day(4) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(sdk.ConflictError);
    expect(refused).toBeInstanceOf(sdk.APIError);
    expect((refused as Sdk.ConflictError).conflicts.map((c) => c.reservationId)).toEqual(["res_01"]);
  });
});
