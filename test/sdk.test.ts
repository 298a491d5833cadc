// The SDK against a scripted loopback API: answers that resolve, 401s, options and defaults.
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  APIError,
  AuthenticationError,
  CalsyncError,
  createClient,
  SDK_VERSION,
  type SyncResponse,
} from "../src/sdk/index.js";
import { startStubApi, type StubApiServer } from "./helpers/stub-api-server.js";

const API_KEY = "cs_TESTtestTESTtestTESTtestTESTte";

const okResponse: SyncResponse = {
  ok: true, syncedCalendars: 1, propertiesChecked: 1, failed: 0, durationMs: 12,
  results: [{
    propertyId: "prp_1", propertyName: "Sea View Loft", source: "airbnb", ok: true,
    result: { status: "success", reservationsFound: 4, reservationsCreated: 1, reservationsUpdated: 0, reservationsCancelled: 1 },
  }],
};

const partialResponse: SyncResponse = {
  ...okResponse, ok: false, syncedCalendars: 2, failed: 1,
  results: [...okResponse.results, {
    propertyId: "prp_1", propertyName: "Sea View Loft", source: "booking", ok: false,
    result: {
      status: "failed", reservationsFound: 0, reservationsCreated: 0, reservationsUpdated: 0, reservationsCancelled: 0,
      error: { code: "http_error", message: "feed answered HTTP 503", httpStatus: 503 },
    },
  }],
};

let api: StubApiServer;
beforeAll(async () => { api = await startStubApi(); });
afterAll(async () => { await api.close(); });
afterEach(() => { vi.unstubAllEnvs(); });

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try { await promise; } catch (error) { return error as Error; }
  throw new Error("expected the call to fail, but it resolved");
}

describe("calendars.sync answers", () => {
  it("resolves with the Sync response on 200", async () => {
    api.script({ status: 200, body: okResponse });
    const res = await createClient({ apiKey: API_KEY, baseURL: api.url }).calendars.sync();
    expect(res).toEqual(okResponse);
  });

  it("resolves (does not throw) on 207 and exposes the failed calendar's error", async () => {
    api.script({ status: 207, body: partialResponse });
    const res = await createClient({ apiKey: API_KEY, baseURL: api.url }).calendars.sync();
    expect(res.ok).toBe(false);
    expect(res.results.filter((r) => !r.ok).map((r) => r.result.error?.code)).toEqual(["http_error"]);
    expect(api.requests).toHaveLength(1);
  });

  it("POSTs to the sync path with the key, accept, client name and extra headers", async () => {
    api.script({ status: 200, body: okResponse });
    const client = createClient({ apiKey: API_KEY, baseURL: `${api.url}//`, headers: { "x-trace": "abc", "x-api-key": "other" } });
    await client.calendars.sync();
    const [req] = api.requests;
    expect(req?.method).toBe("POST");
    expect(req?.url).toBe("/api/v1/calendars/sync");
    expect(req?.headers["x-api-key"]).toBe(API_KEY);
    expect(req?.headers.accept).toBe("application/json");
    expect(req?.headers["x-calsync-client"]).toBe(`sdk/${SDK_VERSION}`);
    expect(req?.headers["x-trace"]).toBe("abc");
  });

  it("keeps a path prefix of baseURL", async () => {
    api.script({ status: 200, body: okResponse });
    await createClient({ apiKey: API_KEY, baseURL: `${api.url}/calsync/` }).calendars.sync();
    expect(api.requests[0]?.url).toBe("/calsync/api/v1/calendars/sync");
  });

  it("uses a custom fetch when given one", async () => {
    api.script({ status: 200, body: okResponse });
    const seen: string[] = [];
    const client = createClient({
      apiKey: API_KEY, baseURL: api.url,
      fetch: (input, init) => { seen.push(`${init.method} ${input}`); return fetch(input, init); },
    });
    await client.calendars.sync();
    expect(seen).toEqual([`POST ${api.url}/api/v1/calendars/sync`]);
  });
});

describe("authentication errors", () => {
  for (const code of ["missing_token", "invalid_token", "expired_token", "revoked_token"] as const) {
    it(`throws AuthenticationError with code ${code} on that 401, without retrying`, async () => {
      api.script({
        status: 401,
        headers: { "www-authenticate": "ApiKey", "x-request-id": `req_${code}` },
        body: { ok: false, error: { code, message: `token problem: ${code}` } },
      });
      const error = await rejectionOf(createClient({ apiKey: API_KEY, baseURL: api.url }).calendars.sync());
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toBeInstanceOf(APIError);
      expect(error).toBeInstanceOf(CalsyncError);
      const auth = error as AuthenticationError;
      expect(auth.code).toBe(code);
      expect(auth.status).toBe(401);
      expect(auth.requestId).toBe(`req_${code}`);
      expect(auth.message).toContain(`token problem: ${code}`);
      expect(auth.headers.get("www-authenticate")).toBe("ApiKey");
      expect(auth.body).toEqual({ ok: false, error: { code, message: `token problem: ${code}` } });
      expect(api.requests).toHaveLength(1);
    });
  }
});

describe("options and defaults", () => {
  it("throws CalsyncError at creation when no API key is given or in the environment", () => {
    vi.stubEnv("CALSYNC_API_KEY", "");
    expect(() => createClient({ baseURL: api.url })).toThrow(CalsyncError);
    expect(() => createClient({ baseURL: api.url, apiKey: "   " })).toThrow(/CALSYNC_API_KEY/);
  });

  it("reads CALSYNC_API_KEY and CALSYNC_BASE_URL from the environment", async () => {
    vi.stubEnv("CALSYNC_API_KEY", `${API_KEY}\n`);
    vi.stubEnv("CALSYNC_BASE_URL", `${api.url}/`);
    api.script({ status: 200, body: okResponse });
    const client = createClient();
    expect(client.baseURL).toBe(api.url);
    await client.calendars.sync();
    expect(api.requests[0]?.headers["x-api-key"]).toBe(API_KEY);
  });

  it("defaults to http://localhost:8787, a 120 s timeout and 2 retries", () => {
    vi.stubEnv("CALSYNC_BASE_URL", "");
    const client = createClient({ apiKey: API_KEY });
    expect([client.baseURL, client.timeout, client.maxRetries]).toEqual(["http://localhost:8787", 120_000, 2]);
  });

  it("rejects unusable options at creation", () => {
    expect(() => createClient({ apiKey: API_KEY, baseURL: "ftp://example.com" })).toThrow(CalsyncError);
    expect(() => createClient({ apiKey: API_KEY, baseURL: "not a url" })).toThrow(CalsyncError);
    expect(() => createClient({ apiKey: API_KEY, timeout: 0 })).toThrow(/timeout/);
    expect(() => createClient({ apiKey: API_KEY, maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => createClient({ apiKey: "cs_abc\r\nx-evil: 1" })).toThrow(/control characters/);
  });

  it("names the same version as package.json", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(SDK_VERSION).toBe(pkg.version);
  });
});
