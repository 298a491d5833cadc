// Remote `calsync sync` as a user runs it: the built CLI as a child process against a real server.
// Exit codes 0/3/4/5/2, the same table as --local, --json unchanged, and the API key never printed.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPortUrl, startApiFixture, type ApiFixture } from "./helpers/api-fixture.js";
import { isBuilt, runBin, type CliResult } from "./helpers/cli.js";

let api: ApiFixture;
let proxy: RecordingProxy;
// Every key a test passed, and every output it got: checked together for leaks at the end.
const usedKeys = new Set<string>();
const outputs: CliResult[] = [];

beforeAll(async () => {
  if (!isBuilt()) throw new Error("dist/ is missing: run `npm run build` (npm test does) before these tests");
  api = await startApiFixture();
  proxy = await startRecordingProxy(api.url);
});
afterAll(async () => {
  await proxy?.close();
  await api?.close();
});

/** Runs `calsync sync …argv` (remote) with only `env` as environment, and remembers keys and output. */
async function sync(argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const flag = argv.indexOf("--api-key");
  if (flag >= 0) usedKeys.add(argv[flag + 1]!);
  if (env.CALSYNC_API_KEY) usedKeys.add(env.CALSYNC_API_KEY);
  const result = await runBin(["sync", ...argv], env);
  outputs.push(result);
  return result;
}

describe("calsync sync against a calsync server", () => {
  it("exits 0 and prints the sync table when every calendar synchronised", async () => {
    const result = await sync(["--base-url", api.url, "--api-key", api.tokens.allOk]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^PROPERTY\s+SOURCE\s+STATUS\s+FOUND\s+CREATED\s+UPDATED\s+CANCELLED\s+ERROR$/m);
    expect(result.stdout).toMatch(/^Sea View Loft\s+airbnb\s+ok\s+2\s/m);
    expect(result.stdout).toMatch(/^Sea View Loft\s+vrbo\s+ok\s+1\s/m);
    expect(result.stdout).toMatch(/Synced 2 calendars of 1 property: 2 ok;/);
  });

  it("exits 3 and shows the failed calendar with its error when some calendars failed (207)", async () => {
    const result = await sync(["--base-url", api.url, "--api-key", api.tokens.someFailed]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stdout).toMatch(/^Harbour Cottage\s+booking\s+failed\s.*http_error: /m);
    expect(result.stdout).toMatch(/1 ok, 1 failed/);
  });

  it("reads the key and the server from CALSYNC_API_KEY and CALSYNC_BASE_URL when the flags are left out", async () => {
    const result = await sync([], { CALSYNC_API_KEY: api.tokens.allOk, CALSYNC_BASE_URL: api.url });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Sea View Loft");
  });

  it("prints with --json exactly the Sync response the server sent, as the only thing on stdout", async () => {
    const result = await sync(["--json", "--base-url", proxy.url, "--api-key", api.tokens.someFailed]);
    expect(result.code, result.stderr).toBe(3);
    expect(proxy.bodies).toHaveLength(1);
    const sent = JSON.parse(proxy.bodies[0]!);
    const printed = JSON.parse(result.stdout);
    expect(printed).toEqual(sent);
    // Same keys in the same order: nothing added, dropped or renamed on the way.
    expect(JSON.stringify(printed)).toBe(JSON.stringify(sent));
  });

  it.each([
    ["an unknown key", `cs_${"Z".repeat(32)}`, "invalid_token"],
    ["a malformed key", "my-secret-password", "invalid_token"],
  ])("exits 4 with the reason for %s", async (_name, key, code) => {
    const result = await sync(["--base-url", api.url, "--api-key", key]);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(new RegExp(`^error: authentication failed \\(${code}\\)`));
  });

  it("exits 4 with revoked_token for a revoked key and tells how to get a new one", async () => {
    const { id, token } = await api.createToken(api.owners.allOk);
    await api.store.revokeToken(id);
    const result = await sync(["--base-url", api.url, "--api-key", token]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("revoked_token");
    expect(result.stderr).toContain("calsync token create");
    // Owners make their own tokens in the dashboard: no shell on the server needed.
    expect(result.stderr).toContain(`in the dashboard (${api.url}/settings/tokens)`);
  });

  it("exits 5 when nothing listens at the base URL", async () => {
    const closed = await closedPortUrl();
    const result = await sync(["--base-url", closed, "--api-key", api.tokens.allOk]);
    expect(result.code).toBe(5);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(closed);
    expect(result.stderr).toMatch(/ECONNREFUSED/);
  });

  it("exits 5 when the base URL answers but is not a calsync server (404)", async () => {
    const result = await sync(["--base-url", api.feeds.baseUrl, "--api-key", api.tokens.allOk]);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/404/);
    expect(result.stderr).toContain("--base-url");
  });

  it("exits 5 with the status when a proxy in front of the server keeps answering an HTML 502", async () => {
    api.feeds.route("/proxy/api/v1/calendars/sync", { status: 502, body: "<html><h1>502 Bad Gateway</h1></html>", headers: { "content-type": "text/html" } });
    const result = await sync(["--base-url", `${api.feeds.baseUrl}/proxy`, "--api-key", api.tokens.allOk]);
    expect(result.code).toBe(5);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: the server answered 502 http_502: .*502 Bad Gateway/);
  });

  it("exits 5 when the server does not answer within --timeout", async () => {
    const result = await sync(["--timeout", "400", "--base-url", api.url, "--api-key", api.tokens.hanging]);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/no answer from .* within 400 ms/);
  });

  it("exits 2 with a hint when no API key is given", async () => {
    const result = await sync(["--base-url", api.url]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: no API key: pass --api-key KEY or set CALSYNC_API_KEY/);
    expect(result.stderr).toContain("(run 'calsync sync --help' for usage)");
  });

  it("exits 2 when --base-url is not an http(s) address", async () => {
    const result = await sync(["--base-url", "ftp://example.com", "--api-key", api.tokens.allOk]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: --base-url must start with http:\/\/ or https:\/\//);
  });

  it("never prints an API key, on stdout or stderr, whatever happened", () => {
    expect(outputs.length).toBeGreaterThan(10);
    for (const key of usedKeys) {
      for (const { stdout, stderr } of outputs) {
        expect(stdout).not.toContain(key);
        expect(stderr).not.toContain(key);
      }
    }
  });
});

interface RecordingProxy {
  url: string;
  /** Bodies of the answers passed back, in order. */
  bodies: string[];
  close(): Promise<void>;
}

/** A loopback pass-through to `target` that keeps a copy of each answer's body. */
async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const bodies: string[] = [];
  const server = http.createServer(async (req, res) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && name !== "host" && name !== "connection") headers.set(name, value);
    }
    const answer = await fetch(`${target}${req.url}`, { method: req.method, headers });
    const body = await answer.text();
    bodies.push(body);
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
