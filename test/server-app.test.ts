// The h3 app through app.fetch(): status codes, error bodies, headers, tokens, request ids, access log.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { H3 } from "h3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type AccessLogLine } from "../src/server/index.js";
import { generateToken } from "../src/server/tokens.js";
import { openStore } from "../src/store/index.js";
import type { Store } from "../src/store/types.js";
import type { ErrorBody, SyncResponse } from "../src/types.js";

const dir = mkdtempSync(path.join(tmpdir(), "calsync-"));
let store: Store;
const logLines: AccessLogLine[] = [];
let app: ReturnType<typeof createApp>;
let ownerId: string;
const tokens = { good: "", expired: "", revoked: "", otherOwner: "" };
const ids = new Map<string, string>();

async function addToken(owner: string, expiresAt: Date | null = null) {
  const generated = generateToken();
  const record = await store.createToken({ ownerId: owner, name: "test", prefix: generated.prefix, hash: generated.hash, expiresAt });
  ids.set(generated.token, record.id);
  return { token: generated.token, id: record.id };
}

function sync(headers: Record<string, string> = {}, init: RequestInit = {}) {
  return app.fetch(new Request("http://calsync.test/api/v1/calendars/sync", { method: "POST", headers, ...init }));
}

beforeAll(async () => {
  store = await openStore(path.join(dir, "app.db"));
  ownerId = (await store.createOwner("Ann")).id;
  await store.createProperty(ownerId, "Sea View Loft");
  await store.createProperty(ownerId, "Cabin");
  tokens.good = (await addToken(ownerId)).token;
  tokens.expired = (await addToken(ownerId, new Date(Date.now() - 1000))).token;
  const revoked = await addToken(ownerId);
  await store.revokeToken(revoked.id);
  tokens.revoked = revoked.token;
  tokens.otherOwner = (await addToken((await store.createOwner("Bob")).id)).token;
  app = createApp({ store, logger: (line) => logLines.push(line) });
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("POST /api/v1/calendars/sync", () => {
  it("answers 200 with an empty Sync response for an owner without calendars", async () => {
    const res = await sync({ "x-api-key": tokens.good });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = (await res.json()) as SyncResponse;
    expect(body).toEqual({ ok: true, syncedCalendars: 0, propertiesChecked: 2, failed: 0, durationMs: expect.any(Number), results: [] });
    expect(body.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("answers for the token's owner only", async () => {
    const res = await sync({ "x-api-key": tokens.otherOwner });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, propertiesChecked: 0, results: [] });
  });

  it("ignores any request body", async () => {
    const res = await sync(
      { "x-api-key": tokens.good, "content-type": "application/json" },
      { body: '{"owner": "someone else", "broken json' },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as SyncResponse).propertiesChecked).toBe(2);
  });

  it("records when a token was last used, and only on success", async () => {
    const lastUsed = async (token: string) => (await store.listTokens(ownerId)).find((t) => t.id === ids.get(token))?.lastUsedAt;
    await sync({ "x-api-key": tokens.good });
    await sync({ "x-api-key": tokens.expired });
    await sync({ "x-api-key": tokens.revoked });
    expect(Date.parse((await lastUsed(tokens.good)) ?? "")).toBeGreaterThan(Date.now() - 60_000);
    expect(await lastUsed(tokens.expired)).toBeNull();
    expect(await lastUsed(tokens.revoked)).toBeNull();
  });

  it.each([
    ["missing_token", {}],
    ["missing_token", { "x-api-key": "" }],
    ["invalid_token", { "x-api-key": "not-a-token" }],
    ["invalid_token", { "x-api-key": `cs_${"A".repeat(32)}` }],
    ["invalid_token", { "x-api-key": "cs_short" }],
  ] as const)("answers 401 %s for %j", async (code, headers) => {
    const res = await sync({ ...headers });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("ApiKey");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ ok: false, error: { code, message: expect.any(String) } });
  });

  it("answers 401 expired_token for a token past its expiry", async () => {
    const res = await sync({ "x-api-key": tokens.expired });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("ApiKey");
    expect(await res.json()).toEqual({ ok: false, error: { code: "expired_token", message: "the API token has expired" } });
  });

  it("answers 401 revoked_token for a revoked token", async () => {
    const res = await sync({ "x-api-key": tokens.revoked });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe("ApiKey");
    expect(((await res.json()) as ErrorBody).error.code).toBe("revoked_token");
  });

  it("lets a token that expires in one second work now and fail after", async () => {
    const soon = (await addToken(ownerId, new Date(Date.now() + 1000))).token;
    expect((await sync({ "x-api-key": soon })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await sync({ "x-api-key": soon });
    expect(res.status).toBe(401);
    expect(((await res.json()) as ErrorBody).error.code).toBe("expired_token");
  });

  it.each(["GET", "PUT", "PATCH", "DELETE", "OPTIONS"])("answers %s with 405 and Allow: POST", async (method) => {
    const res = await app.fetch(new Request("http://calsync.test/api/v1/calendars/sync", { method }));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(await res.json()).toEqual({
      ok: false,
      error: { code: "method_not_allowed", message: "use POST for /api/v1/calendars/sync" },
    });
  });
});

describe("other paths", () => {
  it.each([
    ["GET", "/api"],
    ["GET", "/api/"],
    ["POST", "/api/v1/calendars"],
    ["POST", "/api/v2/calendars/sync"],
    ["GET", "/api/%ZZ"],
    ["GET", "/ical/"],
  ])("answers %s %s with 404 not_found", async (method, pathname) => {
    const res = await app.fetch(new Request(`http://calsync.test${pathname}`, { method }));
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(await res.json()).toEqual({ ok: false, error: { code: "not_found", message: expect.any(String) } });
  });

  it("answers GET /healthz with {ok:true} while the database answers", async () => {
    const res = await app.fetch(new Request("http://calsync.test/healthz"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ ok: true });
  });
});

describe("x-request-id", () => {
  it("echoes a valid incoming request id", async () => {
    const res = await sync({ "x-request-id": "trace-42:abc.DEF_9" });
    expect(res.headers.get("x-request-id")).toBe("trace-42:abc.DEF_9");
  });

  it.each([["has spaces"], ["x".repeat(129)], ['quote"d']])("replaces an unsafe id (%s) with a fresh one", async (id) => {
    const res = await app.fetch(new Request("http://calsync.test/healthz", { headers: { "x-request-id": id } }));
    const answered = res.headers.get("x-request-id");
    expect(answered).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(answered).not.toBe(id);
  });

  it("gives different requests different ids", async () => {
    const a = await app.fetch(new Request("http://calsync.test/healthz"));
    const b = await app.fetch(new Request("http://calsync.test/healthz"));
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
  });
});

describe("access log", () => {
  it("logs method, path, status, time, request id and owner, never the token or the query", async () => {
    logLines.length = 0;
    await app.fetch(
      new Request("http://calsync.test/api/v1/calendars/sync?key=secret-in-query", {
        method: "POST",
        headers: { "x-api-key": tokens.good, "x-request-id": "log-test-1" },
      }),
    );
    await sync({ "x-api-key": tokens.revoked, "x-request-id": "log-test-2" });
    expect(logLines).toEqual([
      { method: "POST", path: "/api/v1/calendars/sync", status: 200, ms: expect.any(Number), requestId: "log-test-1", ownerId },
      { method: "POST", path: "/api/v1/calendars/sync", status: 401, ms: expect.any(Number), requestId: "log-test-2", ownerId: null },
    ]);
    const text = JSON.stringify(logLines);
    expect(text).not.toContain(tokens.good);
    expect(text).not.toContain(tokens.revoked);
    expect(text).not.toContain("secret-in-query");
  });
});

describe("mounted in another h3 app", () => {
  it("answers under the mount path and leaves the host app's own routes alone", async () => {
    const host = new H3().get("/hello", () => "hi").mount("/calsync", app);
    const health = await host.fetch(new Request("http://host.test/calsync/healthz", { headers: { "x-request-id": "mounted-1" } }));
    expect([health.status, health.headers.get("x-request-id"), await health.json()]).toEqual([200, "mounted-1", { ok: true }]);
    const sync = await host.fetch(new Request("http://host.test/calsync/api/v1/calendars/sync", { method: "POST", headers: { "x-api-key": tokens.good } }));
    expect(sync.status).toBe(200);
    expect(((await sync.json()) as SyncResponse).propertiesChecked).toBe(2);
    const unknown = await host.fetch(new Request("http://host.test/calsync/api/elsewhere"));
    expect([unknown.status, ((await unknown.json()) as ErrorBody).error.code]).toEqual([404, "not_found"]);
    const own = await host.fetch(new Request("http://host.test/hello"));
    expect([own.status, await own.text()]).toEqual([200, "hi"]);
  });
});

describe("unexpected faults", () => {
  it("answers 500 internal_error without stack, SQL, path or secret when the database fails", async () => {
    const brokenDir = mkdtempSync(path.join(tmpdir(), "calsync-"));
    const dbPath = path.join(brokenDir, "broken.db");
    const broken = await openStore(dbPath);
    const owner = (await broken.createOwner("Ann")).id;
    const generated = generateToken();
    await broken.createToken({ ownerId: owner, name: "t", prefix: generated.prefix, hash: generated.hash, expiresAt: null });
    const faults: unknown[] = [];
    const brokenApp = createApp({ store: broken, onError: (error) => faults.push(error) });
    await broken.close();
    try {
      for (const request of [
        new Request("http://calsync.test/api/v1/calendars/sync", { method: "POST", headers: { "x-api-key": generated.token } }),
        new Request("http://calsync.test/healthz"),
      ]) {
        const res = await brokenApp.fetch(request);
        expect(res.status).toBe(500);
        expect(res.headers.get("content-type")).toBe("application/json");
        const requestId = res.headers.get("x-request-id");
        expect(requestId).toBeTruthy();
        const text = await res.text();
        expect(JSON.parse(text)).toEqual({
          ok: false,
          error: { code: "internal_error", message: `unexpected server error (request id ${requestId})` },
        });
        for (const leak of [dbPath, "broken.db", generated.token, "database", "SELECT", " at "]) expect(text).not.toContain(leak);
      }
      expect(faults.length).toBe(2);
    } finally {
      rmSync(brokenDir, { recursive: true, force: true });
    }
  });
});
