// Answers that are not calsync JSON still become useful APIErrors, and no error ever shows the key.
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APIError, CalsyncError, createClient, type SyncResponse } from "../src/sdk/index.js";
import { closedPort, startStubApi, type StubApiServer, type StubReply } from "./helpers/stub-api-server.js";

const API_KEY = "cs_SECRETsecretSECRETsecretSECRE";
const okResponse: SyncResponse = { ok: true, syncedCalendars: 0, propertiesChecked: 0, failed: 0, durationMs: 1, results: [] };
const nginx502 =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n" +
  "<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n";

let api: StubApiServer;
beforeAll(async () => { api = await startStubApi(); });
afterAll(async () => { await api.close(); });

async function syncError(reply: StubReply, options: { timeout?: number; baseURL?: string } = {}): Promise<Error> {
  api.script(reply);
  const client = createClient({ apiKey: API_KEY, baseURL: api.url, maxRetries: 0, ...options });
  try { await client.calendars.sync(); } catch (error) { return error as Error; }
  throw new Error("expected the call to fail, but it resolved");
}

describe("answers that are not calsync JSON", () => {
  it("turns a proxy's HTML 502 into an APIError with the status and a short text excerpt", async () => {
    const error = await syncError({ status: 502, headers: { "content-type": "text/html" }, body: nginx502 });
    expect(error).toBeInstanceOf(APIError);
    const api502 = error as APIError;
    expect(api502.status).toBe(502);
    expect(api502.code).toBe("http_502");
    expect(api502.message).toContain("502");
    expect(api502.message).toContain("text/html");
    expect(api502.message).toContain("502 Bad Gateway 502 Bad Gateway nginx/1.25.3");
    expect(api502.message).not.toMatch(/<|\r|\n/);
    expect(api502.body).toBe(nginx502);
  });

  it("keeps the excerpt of a long body short", async () => {
    const error = await syncError({ status: 500, headers: { "content-type": "text/plain" }, body: "x".repeat(10_000) });
    expect(error.message.length).toBeLessThan(400);
  });

  it("says so when an error answer has no body", async () => {
    const error = await syncError({ status: 500 });
    expect((error as APIError).code).toBe("http_500");
    expect(error.message).toContain("empty body");
  });

  it("rejects a 200 whose body is not JSON (a captive portal) with unexpected_response", async () => {
    const error = await syncError({ status: 200, headers: { "content-type": "text/html" }, body: "<h1>Sign in to the Wi-Fi</h1>" });
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(200);
    expect((error as APIError).code).toBe("unexpected_response");
    expect(error.message).toContain("Sign in to the Wi-Fi");
  });

  it("rejects a 200 with JSON that is not a Sync response", async () => {
    const error = await syncError({ status: 200, body: { hello: "world" } });
    expect((error as APIError).code).toBe("unexpected_response");
    expect(error.message).toContain('{"hello":"world"}');
  });

  it("does not follow a redirect, so the key is not sent to the new address", async () => {
    const error = await syncError({ status: 302, headers: { location: `${api.url}/elsewhere` } });
    expect((error as APIError).code).toBe("unexpected_redirect");
    expect(error.message).toContain(`${api.url}/elsewhere`);
    expect(api.requests.map((r) => r.url)).toEqual(["/api/v1/calendars/sync"]);
  });

  it("keeps the server's code and message from a JSON error body", async () => {
    const error = await syncError({ status: 500, body: { ok: false, error: { code: "internal_error", message: "database is locked" } } });
    expect((error as APIError).code).toBe("internal_error");
    expect(error.message).toBe("500 internal_error: database is locked");
  });
});

describe("the API key stays secret", () => {
  it("never appears in any error, even when the server echoes it back", async () => {
    const echo = `bad key ${API_KEY}`;
    const errors: unknown[] = [
      await syncError({ status: 401, body: { ok: false, error: { code: "invalid_token", message: echo } } }),
      await syncError({ status: 502, headers: { "content-type": "text/html" }, body: `<p>${echo}</p>` }),
      await syncError({ status: 200, body: echo }),
      await syncError({ status: 200, body: okResponse, delayMs: 5_000 }, { timeout: 100 }),
      await syncError({ status: 200 }, { baseURL: `http://127.0.0.1:${await closedPort()}` }),
    ];
    try { createClient({ apiKey: `${API_KEY}\u0000` }); } catch (error) { errors.push(error); }
    expect(errors).toHaveLength(6);
    for (const error of errors) {
      expect(error).toBeInstanceOf(CalsyncError);
      expect(String(error)).not.toContain(API_KEY);
      expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(API_KEY);
    }
    expect((errors[0] as APIError).message).toContain("[redacted]");
  });

  it("leaves codes and messages intact when the key is a short test value", async () => {
    api.script({ status: 401, body: { ok: false, error: { code: "invalid_token", message: "unknown token" } } });
    const error = await createClient({ apiKey: "token", baseURL: api.url }).calendars.sync().catch((e: unknown) => e);
    expect((error as APIError).code).toBe("invalid_token");
    expect((error as APIError).message).toBe("401 invalid_token: unknown token");
  });

  it("does not expose the key as a property of the client", () => {
    const client = createClient({ apiKey: API_KEY, baseURL: api.url });
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(API_KEY);
    expect(JSON.stringify(client)).not.toContain(API_KEY);
  });
});
