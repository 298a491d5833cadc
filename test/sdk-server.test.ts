// The SDK against the REAL server (startServer on loopback, a temp SQLite store, loopback feeds):
// what an app sees for 200, 207, each 401 reason, unknown paths, slow servers and closed ports.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  APIError,
  AbortError,
  AuthenticationError,
  CalsyncError,
  ConnectionError,
  createClient,
  TimeoutError,
  type FetchLike,
} from "../src/sdk/index.js";
import { closedPortUrl, startApiFixture, type ApiFixture } from "./helpers/api-fixture.js";

let api: ApiFixture;
beforeAll(async () => {
  api = await startApiFixture();
});
afterAll(async () => {
  await api?.close();
});

/** The error a call rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to reject");
}

/** A fetch that counts the requests it passes on. */
function countingFetch(): { fetch: FetchLike; count: () => number } {
  let calls = 0;
  return {
    fetch: (input, init) => {
      calls++;
      return fetch(input, init);
    },
    count: () => calls,
  };
}

describe("the SDK against a real calsync server", () => {
  it("resolves with every calendar's counts when all of them synchronise (200)", async () => {
    const client = createClient({ apiKey: api.tokens.allOk, baseURL: api.url, maxRetries: 0 });
    const res = await client.calendars.sync();
    expect(res).toMatchObject({ ok: true, syncedCalendars: 2, propertiesChecked: 1, failed: 0 });
    expect(res.results.map((r) => [r.propertyName, r.source, r.result.status, r.result.reservationsFound])).toEqual([
      ["Sea View Loft", "airbnb", "success", 2],
      ["Sea View Loft", "vrbo", "success", 1],
    ]);
  });

  it("reports an unchanged feed as 0 created, 0 updated, 0 cancelled on the next call", async () => {
    const client = createClient({ apiKey: api.tokens.allOk, baseURL: api.url, maxRetries: 0 });
    await client.calendars.sync();
    const again = await client.calendars.sync();
    for (const { result } of again.results) {
      expect([result.reservationsCreated, result.reservationsUpdated, result.reservationsCancelled]).toEqual([0, 0, 0]);
    }
  });

  it("resolves, not throws, for a 207 and says which calendar failed and why", async () => {
    const client = createClient({ apiKey: api.tokens.someFailed, baseURL: api.url, maxRetries: 0 });
    const res = await client.calendars.sync();
    expect(res).toMatchObject({ ok: false, syncedCalendars: 2, failed: 1 });
    const failed = res.results.filter((r) => !r.ok);
    expect(failed).toEqual([
      {
        propertyId: expect.any(String),
        propertyName: "Harbour Cottage",
        source: "booking",
        ok: false,
        result: {
          status: "failed",
          reservationsFound: 0,
          reservationsCreated: 0,
          reservationsUpdated: 0,
          reservationsCancelled: 0,
          error: { code: "http_error", message: expect.any(String), httpStatus: 503 },
        },
      },
    ]);
  });

  it("resolves with no results for an owner without calendars (200)", async () => {
    const client = createClient({ apiKey: api.tokens.noCalendars, baseURL: api.url });
    await expect(client.calendars.sync()).resolves.toMatchObject({ ok: true, syncedCalendars: 0, propertiesChecked: 1, results: [] });
  });

  it.each([
    ["a malformed key", "not-a-token"],
    ["a well-formed but unknown key", `cs_${"Q".repeat(32)}`],
  ])("rejects %s with AuthenticationError code invalid_token, without retrying", async (_name, apiKey) => {
    const counter = countingFetch();
    const client = createClient({ apiKey, baseURL: api.url, fetch: counter.fetch });
    const error = await rejection(client.calendars.sync());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: "invalid_token", requestId: expect.any(String) });
    expect(counter.count()).toBe(1);
  });

  it("rejects a request that arrives without the key (a proxy dropped it) with code missing_token", async () => {
    const dropKey: FetchLike = (input, init) => {
      const headers = new Headers(init.headers);
      headers.delete("x-api-key");
      return fetch(input, { ...init, headers });
    };
    const client = createClient({ apiKey: api.tokens.allOk, baseURL: api.url, fetch: dropKey });
    const error = await rejection(client.calendars.sync());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).code).toBe("missing_token");
  });

  it("refuses to create a client without a key: a CalsyncError at once, not a 401 later", () => {
    expect(() => createClient({ apiKey: "", baseURL: api.url })).toThrow(CalsyncError);
    expect(() => createClient({ apiKey: "   ", baseURL: api.url })).toThrow(/no API key/);
  });

  it("rejects an expired token with code expired_token", async () => {
    const { token } = await api.createToken(api.owners.allOk, new Date(Date.now() - 60_000));
    const error = await rejection(createClient({ apiKey: token, baseURL: api.url }).calendars.sync());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).code).toBe("expired_token");
  });

  it("accepts a token until it is revoked in the store, then rejects it with code revoked_token", async () => {
    const { id, token } = await api.createToken(api.owners.allOk);
    const client = createClient({ apiKey: token, baseURL: api.url });
    await expect(client.calendars.sync()).resolves.toMatchObject({ ok: true });
    expect(await api.store.revokeToken(id)).toBe(true);
    const error = await rejection(client.calendars.sync());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).code).toBe("revoked_token");
  });

  it("rejects a base URL that is not the API with APIError not_found (404), not an authentication error", async () => {
    const client = createClient({ apiKey: api.tokens.allOk, baseURL: `${api.url}/wrong-prefix` });
    const error = await rejection(client.calendars.sync());
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 404, code: "not_found" });
  });

  it("gives up with TimeoutError when the server takes longer than the timeout (a feed that never answers)", async () => {
    const client = createClient({ apiKey: api.tokens.hanging, baseURL: api.url, timeout: 300, maxRetries: 0 });
    const error = await rejection(client.calendars.sync());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
  });

  it("stops waiting with AbortError when the caller's signal aborts", async () => {
    const client = createClient({ apiKey: api.tokens.hanging, baseURL: api.url });
    const controller = new AbortController();
    const call = client.calendars.sync({ signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const error = await rejection(call);
    expect(error).toBeInstanceOf(AbortError);
    expect((error as Error).name).toBe("AbortError");
  });

  it("rejects with ConnectionError when nothing listens at the base URL", async () => {
    const closed = await closedPortUrl();
    const client = createClient({ apiKey: api.tokens.allOk, baseURL: closed, maxRetries: 0 });
    const error = await rejection(client.calendars.sync());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect((error as Error).message).not.toContain(api.tokens.allOk);
  });
});
