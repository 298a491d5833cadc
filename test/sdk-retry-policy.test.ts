// The SDK's retry policy as pure functions: which statuses, how long, and Retry-After parsing.
import { describe, expect, it } from "vitest";
import { backoffMs, isRetryableStatus, mayRepeat, retryAfterMs, retryDelayMs, sleep } from "../src/sdk/retry.js";
import { AbortError } from "../src/sdk/errors.js";

const headers = (init: Record<string, string>): Headers => new Headers(init);

describe("retry policy", () => {
  it("retries 408, 429 and 5xx only", () => {
    const statuses = [200, 207, 301, 400, 401, 404, 405, 408, 409, 429, 500, 502, 503, 504];
    expect(statuses.filter(isRetryableStatus)).toEqual([408, 429, 500, 502, 503, 504]);
  });

  it("repeats a GET always, a sync, and any other write only with an Idempotency-Key", () => {
    expect(mayRepeat("GET")).toBe(true);
    expect(mayRepeat("POST", undefined, true)).toBe(true);
    for (const method of ["POST", "PATCH", "DELETE"]) {
      expect(mayRepeat(method)).toBe(false);
      expect(mayRepeat(method, "")).toBe(false);
      expect(mayRepeat(method, "order-1")).toBe(true);
    }
  });

  it("backs off 0.5 s, 1 s, 2 s … up to 8 s, shortened by at most 25 % jitter", () => {
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffMs(n, () => 0))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(backoffMs(0, () => 1)).toBe(375);
  });

  it("reads Retry-After in seconds, as an HTTP date, and retry-after-ms first", () => {
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(retryAfterMs(headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(headers({ "retry-after": "Tue, 01 Jan 2030 00:00:05 GMT" }), now)).toBe(5000);
    expect(retryAfterMs(headers({ "retry-after": "Mon, 31 Dec 2029 23:00:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(headers({ "retry-after": "2", "retry-after-ms": "150" }), now)).toBe(150);
  });

  it("ignores a missing or unreadable Retry-After", () => {
    expect(retryAfterMs(headers({}))).toBeUndefined();
    expect(retryAfterMs(headers({ "retry-after": "-1" }))).toBeUndefined();
    expect(retryAfterMs(headers({ "retry-after": "soon" }))).toBeUndefined();
    const delay = retryDelayMs(0, headers({ "retry-after": "soon" }))!;
    expect(delay).toBeGreaterThanOrEqual(375);
    expect(delay).toBeLessThanOrEqual(500);
  });

  it("honours a server wait up to a minute and refuses to retry beyond", () => {
    expect(retryDelayMs(0, headers({ "retry-after": "60" }))).toBe(60_000);
    expect(retryDelayMs(0, headers({ "retry-after": "61" }))).toBeUndefined();
  });

  it("sleep rejects with AbortError when its signal aborts", async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort("bye");
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
    await expect(sleep(10, AbortSignal.abort())).rejects.toBeInstanceOf(AbortError);
  });
});
