// Retries, timeouts, connection failures and aborts of the SDK against a scripted loopback API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AbortError,
  APIError,
  ConnectionError,
  createClient,
  TimeoutError,
  type SyncResponse,
} from "../src/sdk/index.js";
import { closedPort, startStubApi, type StubApiServer } from "./helpers/stub-api-server.js";

const API_KEY = "cs_RETRYretryRETRYretryRETRYretr";
const okResponse: SyncResponse = { ok: true, syncedCalendars: 0, propertiesChecked: 0, failed: 0, durationMs: 1, results: [] };
const unavailable = { status: 503, body: { ok: false, error: { code: "internal_error", message: "try later" } } };
// Keeps retry tests quick; the default backoff is covered by test/sdk-retry-policy.test.ts.
const quickly = { "retry-after-ms": "10" };

let api: StubApiServer;
beforeAll(async () => { api = await startStubApi(); });
afterAll(async () => { await api.close(); });

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try { await promise; } catch (error) { return error as Error; }
  throw new Error("expected the call to fail, but it resolved");
}

describe("retries", () => {
  it("retries a 503 and resolves with the next 200 (two requests)", async () => {
    api.script({ ...unavailable, headers: quickly }, { status: 200, body: okResponse });
    const res = await createClient({ apiKey: API_KEY, baseURL: api.url }).calendars.sync();
    expect(res).toEqual(okResponse);
    expect(api.requests).toHaveLength(2);
  });

  it("retries with the default backoff when the server gives no Retry-After", async () => {
    api.script(unavailable, { status: 200, body: okResponse });
    await createClient({ apiKey: API_KEY, baseURL: api.url }).calendars.sync();
    expect(api.requests).toHaveLength(2);
  });

  it("gives up after maxRetries + 1 requests with the last APIError", async () => {
    api.script({ ...unavailable, headers: quickly });
    const error = await rejectionOf(createClient({ apiKey: API_KEY, baseURL: api.url, maxRetries: 2 }).calendars.sync());
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(503);
    expect((error as APIError).code).toBe("internal_error");
    expect(api.requests).toHaveLength(3);
  });

  it("retries 408, 429 and 500", async () => {
    api.script(
      { status: 408, headers: quickly, body: "" },
      { status: 429, headers: quickly, body: "" },
      { status: 500, headers: quickly, body: "" },
      { status: 200, body: okResponse },
    );
    await createClient({ apiKey: API_KEY, baseURL: api.url, maxRetries: 3 }).calendars.sync();
    expect(api.requests).toHaveLength(4);
  });

  it("sends nothing more when maxRetries is 0", async () => {
    api.script({ ...unavailable, headers: quickly }, { status: 200, body: okResponse });
    const error = await rejectionOf(createClient({ apiKey: API_KEY, baseURL: api.url, maxRetries: 0 }).calendars.sync());
    expect((error as APIError).status).toBe(503);
    expect(api.requests).toHaveLength(1);
  });

  for (const status of [400, 404, 405]) {
    it(`does not retry a ${status}`, async () => {
      api.script({ status, body: { ok: false, error: { code: "not_found", message: "nope" } } }, { status: 200, body: okResponse });
      const error = await rejectionOf(createClient({ apiKey: API_KEY, baseURL: api.url }).calendars.sync());
      expect((error as APIError).status).toBe(status);
      expect(api.requests).toHaveLength(1);
    });
  }

  it("waits at least the 429's Retry-After before asking again", async () => {
    api.script({ status: 429, headers: { "retry-after": "1" }, body: "" }, { status: 200, body: okResponse });
    await createClient({ apiKey: API_KEY, baseURL: api.url }).calendars.sync();
    const [first, second] = api.requests;
    // Lower bound only: without Retry-After the first backoff is at most 500 ms.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it("fails at once when Retry-After asks for longer than a minute", async () => {
    api.script({ status: 429, headers: { "retry-after": "3600" }, body: "" }, { status: 200, body: okResponse });
    const error = await rejectionOf(createClient({ apiKey: API_KEY, baseURL: api.url }).calendars.sync());
    expect((error as APIError).status).toBe(429);
    expect((error as APIError).headers.get("retry-after")).toBe("3600");
    expect(api.requests).toHaveLength(1);
  });
});

describe("timeouts and connection errors", () => {
  it("throws TimeoutError (a ConnectionError) when the server answers later than timeout", async () => {
    api.script({ status: 200, body: okResponse, delayMs: 5_000 });
    const error = await rejectionOf(createClient({ apiKey: API_KEY, baseURL: api.url, timeout: 200, maxRetries: 0 }).calendars.sync());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toContain("200 ms");
  });

  it("gives each retry a fresh time limit, so a timed-out attempt does not spoil the next", async () => {
    api.script({ status: 200, body: okResponse, delayMs: 5_000 }, { status: 200, body: okResponse });
    const res = await createClient({ apiKey: API_KEY, baseURL: api.url, timeout: 300, maxRetries: 1 }).calendars.sync();
    expect(res).toEqual(okResponse);
    expect(api.requests).toHaveLength(2);
  });

  it("throws ConnectionError naming the address when nothing listens on the port", async () => {
    const baseURL = `http://127.0.0.1:${await closedPort()}`;
    const error = await rejectionOf(createClient({ apiKey: API_KEY, baseURL, maxRetries: 0 }).calendars.sync());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect(error.message).toContain(baseURL);
    expect(error.message).toContain("ECONNREFUSED");
  });

  it("retries a refused connection maxRetries times", async () => {
    const baseURL = `http://127.0.0.1:${await closedPort()}`;
    let calls = 0;
    const counting = (input: string, init: RequestInit): Promise<Response> => { calls++; return fetch(input, init); };
    const error = await rejectionOf(createClient({ apiKey: API_KEY, baseURL, maxRetries: 1, fetch: counting }).calendars.sync());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(calls).toBe(2);
  });
});

describe("aborting", () => {
  it("stops a request in flight with AbortError and does not retry", async () => {
    api.script({ status: 200, body: okResponse, delayMs: 30_000 });
    const controller = new AbortController();
    const call = createClient({ apiKey: API_KEY, baseURL: api.url }).calendars.sync({ signal: controller.signal });
    await api.waitForRequests(1);
    controller.abort(new Error("user left the page"));
    const error = await rejectionOf(call);
    expect(error).toBeInstanceOf(AbortError);
    expect(error.name).toBe("AbortError");
    expect((error.cause as Error).message).toBe("user left the page");
    expect(api.requests).toHaveLength(1);
  });

  it("stops during the wait before a retry", async () => {
    api.script({ ...unavailable, headers: { "retry-after": "30" } }, { status: 200, body: okResponse });
    const controller = new AbortController();
    let answered!: () => void;
    const firstAnswerRead = new Promise<void>((resolve) => { answered = resolve; });
    // Hands the SDK an already-read 503, then lets it settle into its 30 s wait before aborting.
    const readFirst = async (input: string, init: RequestInit): Promise<Response> => {
      const res = await fetch(input, init);
      const text = await res.text();
      setTimeout(answered, 50);
      return new Response(text, { status: res.status, headers: res.headers });
    };
    const client = createClient({ apiKey: API_KEY, baseURL: api.url, fetch: readFirst });
    const call = client.calendars.sync({ signal: controller.signal });
    await firstAnswerRead;
    controller.abort();
    // Without an abortable wait this would sit out the 30 s and exceed the test's time limit.
    expect(await rejectionOf(call)).toBeInstanceOf(AbortError);
    expect(api.requests).toHaveLength(1);
  });

  it("sends nothing when the signal is already aborted", async () => {
    api.script({ status: 200, body: okResponse });
    const error = await rejectionOf(createClient({ apiKey: API_KEY, baseURL: api.url }).calendars.sync({ signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(AbortError);
    expect(api.requests).toHaveLength(0);
  });
});
