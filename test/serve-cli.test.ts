// `calsync serve`: flag checks in-process, and the built CLI as a child process for listening, signals and shutdown.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { generateToken } from "../src/server/tokens.js";
import { openStore } from "../src/store/index.js";
import type { SyncResponse } from "../src/types.js";
import { UsageError } from "../src/cli/context.js";
import { parseDuration } from "../src/cli/duration.js";
import { runCli } from "./helpers/cli.js";
import { useCliFixtures } from "./helpers/cli-fixtures.js";
import { buildIcs, day } from "./helpers/ics.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { tmp, feeds } = useCliFixtures({ built: true });
const children: ChildProcess[] = [];

// A feed that answers only when the test says so, to catch the server mid-sync.
let release: () => void = () => {};
let arrived: () => void = () => {};
const feedArrived = new Promise<void>((resolve) => (arrived = resolve));
const released = new Promise<void>((resolve) => (release = resolve));
const stays = buildIcs([0, 1, 2, 3].map((i) => ({ uid: `stay-${i}`, start: day(5 + i * 7), end: day(8 + i * 7), summary: "Reserved" })));

/** Starts `calsync serve …`; `firstOutput` resolves with stdout once `printed` says the URL is there. */
function startServe(args: string[], env: Record<string, string> = {}, printed = (stdout: string) => stdout.includes("\n")) {
  const child = spawn(process.execPath, [path.join(root, "bin/calsync.js"), "serve", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const firstOutput = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", () => printed(stdout) && resolve(stdout));
    exited.then(() => reject(new Error(`serve exited before printing its URL:\n${stderr}`)));
  });
  return { child, exited, firstOutput, output: () => ({ stdout, stderr }) };
}

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  release();
});

describe("durations (--sync-every, token --expires-in)", () => {
  it.each([
    ["30s", 30_000],
    ["15m", 900_000],
    ["12h", 43_200_000],
    ["90d", 7_776_000_000],
    ["1H", 3_600_000],
  ])("reads %s as %i ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "10", "m", "1.5h", "-1m", "0s", "1w", "15 m", "1h30m"])("refuses %j as a usage error", (text) => {
    expect(() => parseDuration(text)).toThrow(UsageError);
  });
});

describe("calsync serve flags", () => {
  it.each([
    [["--port", "70000"], /--port must be a whole number from 0 to 65535/],
    [["--port", "http"], /--port must be a whole number from 0 to 65535/],
    [["--sync-every", "10x"], /invalid duration "10x"/],
    [["--sync-every", "0s"], /invalid duration "0s"/],
    [["--sync-every", "30d"], /--sync-every must be at most 24d/],
    [["--host", "my host"], /invalid host "my host"/],
  ])("refuses %j as a usage error", async (args, message) => {
    const result = await runCli(["serve", "--db", tmp.db(), ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain("calsync serve --help");
    expect(result.stdout).toBe("");
  });

  it("refuses a PORT from the environment that is not a port", async () => {
    const result = await runCli(["serve", "--db", tmp.db()], { env: { PORT: "eighty" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/PORT must be a whole number from 0 to 65535 \(got "eighty"\)/);
  });

  it("documents its flags in --help", async () => {
    const result = await runCli(["serve", "--help"]);
    expect(result.code).toBe(0);
    for (const flag of ["--db", "--host", "--port", "--sync-every", "--allow-private-networks", "--json-logs", "--json", "--rate-limit", "--metrics"]) {
      expect(result.stdout).toContain(flag);
    }
  });
});

describe("calsync serve as a process", () => {
  it("prints its URL, answers, and exits 0 on SIGINT (PORT and HOST from the environment)", async () => {
    const serve = startServe(["--db", tmp.db()], { PORT: "0", HOST: "127.0.0.1" });
    const url = (await serve.firstOutput).trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${url}/healthz`, { headers: { "x-request-id": "cli-health-1" } });
    expect([res.status, await res.json()]).toEqual([200, { ok: true }]);
    serve.child.kill("SIGINT");
    expect(await serve.exited).toBe(0);
    const { stderr } = serve.output();
    expect(stderr).toMatch(/GET \/healthz 200 \d+ms id=cli-health-1/);
  });

  it("serves the dashboard, and with --trust-proxy marks cookies Secure behind an HTTPS proxy", async () => {
    const plain = startServe(["--db", tmp.db(), "--port", "0"]);
    const proxied = startServe(["--db", tmp.db(), "--port", "0", "--trust-proxy"]);
    const https = { "x-forwarded-proto": "https" };
    const direct = await fetch(`${(await plain.firstOutput).trim()}/sign-in`, { headers: https });
    const behind = await fetch(`${(await proxied.firstOutput).trim()}/sign-in`, { headers: https });
    expect([direct.status, direct.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    expect(direct.headers.get("set-cookie")).not.toMatch(/Secure/);
    expect(behind.headers.get("set-cookie")).toMatch(/^calsync_csrf=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    for (const serve of [plain, proxied]) {
      serve.child.kill("SIGTERM");
      expect(await serve.exited).toBe(0);
    }
  });

  it("prints {\"url\"} with --json and logs JSON lines with --json-logs", async () => {
    const serve = startServe(["--db", tmp.db(), "--port", "0", "--json", "--json-logs"], {}, (out) => out.endsWith("}\n"));
    const { url } = JSON.parse(await serve.firstOutput) as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await fetch(`${url}/nowhere`);
    serve.child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);
    const lines = serve.output().stderr.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(expect.objectContaining({ msg: "request", method: "GET", path: "/nowhere", status: 404 }));
  });

  it("lets a running sync finish on SIGTERM, answers it, writes the calendar whole, and exits 0", async () => {
    const db = tmp.db();
    const store = await openStore(db);
    const owner = await store.createOwner("Ann");
    const property = await store.createProperty(owner.id, "Loft");
    const url = feeds.url("/slow.ics", (_req, res) => {
      arrived();
      void released.then(() => res.writeHead(200, { "content-type": "text/calendar" }).end(stays));
    });
    await store.createCalendar({ propertyId: property.id, source: "airbnb", url });
    const token = generateToken();
    await store.createToken({ ownerId: owner.id, name: "t", prefix: token.prefix, hash: token.hash, expiresAt: null });
    await store.close();

    const serve = startServe(["--db", db, "--port", "0"], { CALSYNC_ALLOW_PRIVATE_NETWORKS: "1" });
    const base = (await serve.firstOutput).trim();
    const answer = fetch(`${base}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": token.token } });
    await feedArrived;
    serve.child.kill("SIGTERM");
    // Give the signal time to land while the feed is still held, so the shutdown really waits for the sync.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(serve.child.exitCode).toBeNull();
    release();

    const res = await answer;
    expect(res.status).toBe(200);
    expect(((await res.json()) as SyncResponse).results[0]?.result.reservationsCreated).toBe(4);
    expect(await serve.exited).toBe(0);

    const after = await openStore(db);
    try {
      expect(await after.listReservations({ ownerId: owner.id })).toHaveLength(4);
      expect(await after.listSyncRuns({ ownerId: owner.id })).toHaveLength(1);
    } finally {
      await after.close();
    }
  });

  it("applies --rate-limit per token and serves /metrics with --metrics", async () => {
    const db = tmp.db();
    const store = await openStore(db);
    const owner = await store.createOwner("Ann");
    await store.createProperty(owner.id, "Loft");
    const token = generateToken();
    await store.createToken({ ownerId: owner.id, name: "t", prefix: token.prefix, hash: token.hash, expiresAt: null });
    await store.close();

    const serve = startServe(["--db", db, "--port", "0", "--rate-limit", "1/h", "--metrics"]);
    const base = (await serve.firstOutput).trim();
    const sync = () => fetch(`${base}/api/v1/calendars/sync`, { method: "POST", headers: { "x-api-key": token.token } });
    const first = await sync();
    expect([first.status, first.headers.get("ratelimit-limit")]).toEqual([200, "1"]);
    const second = await sync();
    expect(second.status).toBe(429);
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(3500);
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('calsync_syncs_total{trigger="api",outcome="ok"} 1');
    serve.child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);
  });
});
