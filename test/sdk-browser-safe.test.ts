// The root entry must run in browsers, Deno, Bun and edge runtimes (CONTRACT §7): bundle it for
// the browser, check what it pulls in, and run the bundle where only web globals exist.
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { build, type BuildOptions } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as Sdk from "../src/sdk/index.js";
import { startStubApi, type StubApiServer } from "./helpers/stub-api-server.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const browser: BuildOptions = {
  absWorkingDir: root, bundle: true, platform: "browser", write: false, metafile: true, logLevel: "silent",
};

async function bundleSdk(format: "esm" | "iife") {
  return build({ ...browser, entryPoints: ["src/sdk/index.ts"], format, globalName: "calsync" });
}

let api: StubApiServer;
beforeAll(async () => { api = await startStubApi(); });
afterAll(async () => { await api.close(); });

describe("browser-safe root entry", () => {
  it("bundles for the browser with no errors or warnings", async () => {
    const result = await bundleSdk("esm");
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    const code = result.outputFiles![0]!.text;
    expect(code).toContain("createClient");
    expect(code).not.toMatch(/["'`]node:/);
    expect(code).not.toMatch(/\brequire\s*\(/);
  });

  it("reaches only src/sdk, src/types.ts and the Standard Webhooks library, never engine, store, server or cli", async () => {
    const { metafile } = await bundleSdk("esm");
    const inputs = Object.keys(metafile!.inputs);
    expect(inputs).toContain("src/sdk/index.ts");
    // verifyWebhook signs with the Standard Webhooks reference library: pure JavaScript, nothing of Node.
    const packages = ["node_modules/standardwebhooks/", "node_modules/@stablelib/base64/", "node_modules/fast-sha256/"];
    const outside = inputs.filter((file) => !file.startsWith("src/sdk/") && file !== "src/types.ts");
    // A worktree's node_modules may be a symlink elsewhere (esbuild then names ../../main/node_modules/…).
    const inPackage = (file: string) => packages.some((p) => file.startsWith(p) || file.includes(`/${p}`));
    expect(outside.filter((file) => !inPackage(file))).toEqual([]);
  });

  it("would catch a node: import (the check above can fail)", async () => {
    const attempt = build({ ...browser, stdin: { contents: 'import { readFileSync } from "node:fs"; console.log(readFileSync);', resolveDir: root } });
    await expect(attempt).rejects.toThrow(/node:fs/);
  });

  it("runs with nothing but web globals: no process, no require, no Buffer", async () => {
    const { outputFiles } = await bundleSdk("iife");
    const context = vm.createContext({ fetch, Headers, AbortController, AbortSignal, URL, setTimeout, clearTimeout });
    vm.runInContext(outputFiles![0]!.text, context);
    const sdk = (context as { calsync: typeof Sdk }).calsync;

    // Without process.env there is no default key: a clear error at creation, not a crash.
    expect(() => sdk.createClient({ baseURL: api.url })).toThrow(sdk.CalsyncError);

    const body = { ok: true, syncedCalendars: 0, propertiesChecked: 1, failed: 0, durationMs: 3, results: [] };
    api.script({ status: 200, body });
    const res = await sdk.createClient({ apiKey: "cs_vmVMvmVMvmVMvmVMvmVMvmVMvmVMvm", baseURL: api.url }).calendars.sync();
    expect(JSON.parse(JSON.stringify(res))).toEqual(body);
  });
});
