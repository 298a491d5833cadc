// The SDK's browser bundle in a non-Node runtime: Vercel's Edge Runtime VM (@edge-runtime/vm), whose
// globals are the web platform's own (its fetch, Headers, AbortController), against a real calsync server.
import { EdgeVM } from "@edge-runtime/vm";
import { Webhook } from "standardwebhooks";
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type * as Sdk from "../src/sdk/index.js";
import type { SyncResponse } from "../src/types.js";
import { ics, ownerWith, useServerFixtures } from "./helpers/server-fixtures.js";

const { feed, newStore, serve } = useServerFixtures();
const root = fileURLToPath(new URL("..", import.meta.url));

/** The root entry bundled for browsers, evaluated in a fresh Edge Runtime context. */
async function sdkInEdgeRuntime(): Promise<{ sdk: typeof Sdk; edge: EdgeVM }> {
  const { outputFiles } = await build({
    absWorkingDir: root, entryPoints: ["src/sdk/index.ts"], bundle: true, platform: "browser", format: "iife",
    globalName: "calsync", write: false, logLevel: "silent",
  });
  const edge = new EdgeVM();
  edge.evaluate(outputFiles[0]!.text);
  return { sdk: edge.evaluate<typeof Sdk>("calsync"), edge };
}

describe("the SDK in the Edge Runtime", () => {
  it("verifies a webhook the reference library signed with Web Crypto there, and refuses a changed body", async () => {
    const { sdk } = await sdkInEdgeRuntime();
    const secret = `whsec_${Buffer.from("edge-runtime-secret-0123").toString("base64")}`;
    const body = JSON.stringify({ type: "sync.completed", timestamp: new Date().toISOString(), data: { ok: true, syncedCalendars: 0, propertiesChecked: 0, failed: 0, durationMs: 1, results: [] } });
    const now = new Date();
    const headers = { "webhook-id": "msg_edge", "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": new Webhook(secret).sign("msg_edge", now, body) };
    expect((await sdk.verifyWebhook(body, headers, secret)).type).toBe("sync.completed");
    const refused = await sdk.verifyWebhook(body.replace("true", "false"), headers, secret).then(() => undefined, (e: unknown) => e);
    expect(refused).toMatchObject({ name: "WebhookVerificationError" });
    expect(refused).toBeInstanceOf(sdk.WebhookVerificationError);
  });

  it("has no Node globals to lean on there", async () => {
    const { edge } = await sdkInEdgeRuntime();
    expect(edge.evaluate("typeof process + typeof require + typeof Buffer")).toBe("undefinedundefinedundefined");
  });

  it("syncs through a real server (200, then 207 with the failing calendar) and reports a bad key as AuthenticationError", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed({ body: ics("a1", "a2") }) }] });
    const server = await serve(store);
    const { sdk } = await sdkInEdgeRuntime();

    const client = sdk.createClient({ apiKey: ann.token, baseURL: server.url, maxRetries: 0 });
    const first: SyncResponse = await client.calendars.sync();
    expect(first).toMatchObject({ ok: true, syncedCalendars: 1, failed: 0 });
    expect(first.results[0]?.result).toMatchObject({ status: "success", reservationsFound: 2, reservationsCreated: 2 });

    await store.createCalendar({ propertyId: ann.propertyIds["Loft"]!, source: "booking", url: feed({ status: 503 }) });
    const second = await client.calendars.sync();
    expect(second.ok).toBe(false);
    expect(second.results.map((r) => [r.source, r.result.error?.code ?? null])).toEqual([["airbnb", null], ["booking", "http_error"]]);

    const refused = sdk.createClient({ apiKey: "cs_000000000000000000000000000000000", baseURL: server.url, maxRetries: 0 }).calendars.sync();
    const error = await refused.then(() => undefined, (e: unknown) => e);
    // Classes of the Edge context, not this process's: compare by name and fields.
    expect(error).toMatchObject({ name: "AuthenticationError", status: 401 });
    expect(error).toBeInstanceOf(sdk.AuthenticationError);
  });
});
