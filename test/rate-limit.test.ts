// Per-token rate limit of POST /api/v1/calendars/sync (CONTRACT §12): 6 a minute by default, 429
// `rate_limited` with Retry-After past it, RateLimit-* headers, joined single-flight requests counted.
import { describe, expect, it } from "vitest";
import { parseRateLimit } from "../src/server/rate-limit.js";
import { generateToken } from "../src/server/tokens.js";
import type { SyncResponse } from "../src/types.js";
import { runCli } from "./helpers/cli.js";
import { Gate, ics, ownerWith, post, until, useServerFixtures } from "./helpers/server-fixtures.js";
import { storeKinds } from "./helpers/stores.js";

const { dbPath } = useServerFixtures();

const rateHeaders = (res: Response) => ({
  limit: res.headers.get("ratelimit-limit"),
  remaining: res.headers.get("ratelimit-remaining"),
  reset: res.headers.get("ratelimit-reset"),
});

// On PostgreSQL the count lives in the database (RateLimiterPostgres), on SQLite in memory: the same answers.
describe.each(storeKinds())("rate limit of the sync operation ($name store)", (kind) => {
  const { feed, newStore, serve } = useServerFixtures(kind);

    it("answers a burst of 7 syncs in a minute with six 200s counting down and one 429 with Retry-After", async () => {
      const store = await newStore();
      const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed({ body: ics("a1") }) }] });
      const server = await serve(store);
      const answers: Response[] = [];
      for (let i = 0; i < 7; i++) answers.push(await post(server, ann.token));

      expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 200, 429]);
      expect(answers.map((res) => rateHeaders(res).remaining)).toEqual(["5", "4", "3", "2", "1", "0", "0"]);
      for (const res of answers) {
        expect(res.headers.get("ratelimit-limit")).toBe("6");
        expect(Number(res.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1);
        expect(Number(res.headers.get("ratelimit-reset"))).toBeLessThanOrEqual(60);
      }
      const refused = answers[6]!;
      expect(refused.headers.get("content-type")).toBe("application/json");
      expect(refused.headers.get("x-request-id")).toBeTruthy();
      const retryAfter = refused.headers.get("retry-after")!;
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
      const body = (await refused.json()) as { ok: boolean; error: { code: string; message: string } };
      expect(body).toEqual({ ok: false, error: { code: "rate_limited", message: expect.stringContaining(`retry after ${retryAfter} s`) } });
      // A refused request does not sync: six runs in the history, not seven.
      expect(await store.listSyncRuns({ ownerId: ann.ownerId })).toHaveLength(6);
    });

    it("counts per token: another token of the same owner still gets through", async () => {
      const store = await newStore();
      const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed({ body: ics("a1") }) }] });
      const generated = generateToken();
      await store.createToken({ ownerId: ann.ownerId, name: "second", prefix: generated.prefix, hash: generated.hash, expiresAt: null });
      const server = await serve(store, { rateLimit: { limit: 1, windowSeconds: 60 } });
      expect((await post(server, ann.token)).status).toBe(200);
      expect((await post(server, ann.token)).status).toBe(429);
      const other = await post(server, generated.token);
      expect(other.status).toBe(200);
      expect(rateHeaders(other)).toEqual({ limit: "1", remaining: "0", reset: expect.stringMatching(/^\d+$/) });
    });

    it("counts a request that joins a running sync of its owner", async () => {
      const store = await newStore();
      const gate = new Gate();
      const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed(gate.serve(ics("a1"))) }] });
      const generated = generateToken();
      const second = await store.createToken({ ownerId: ann.ownerId, name: "second", prefix: generated.prefix, hash: generated.hash, expiresAt: null });
      const server = await serve(store, { rateLimit: { limit: 1, windowSeconds: 60 } });

      const first = post(server, ann.token);
      expect(await gate.arrivals(1)).toBe(true);
      const joining = post(server, generated.token);
      // The joining request has been authenticated (and so counted) once its token shows a use.
      await until(async () => (await store.listTokens(ann.ownerId)).some((t) => t.id === second.id && t.lastUsedAt !== null));
      gate.open();
      const [a, b] = await Promise.all([first, joining]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect((await b.json()) as SyncResponse).toEqual((await a.json()) as SyncResponse);
      expect(gate.arrived).toBe(1);

      const third = await post(server, generated.token);
      expect(third.status).toBe(429);
      expect(rateHeaders(third).remaining).toBe("0");
    });

    it("tells a whole window's allowance on answers that counted no token, and nothing outside /api/", async () => {
      const server = await serve(await newStore());
      const unauthenticated = await post(server);
      expect(unauthenticated.status).toBe(401);
      expect(rateHeaders(unauthenticated)).toEqual({ limit: "6", remaining: "6", reset: "60" });
      const wrongMethod = await fetch(`${server.url}/api/v1/calendars/sync`);
      expect(wrongMethod.status).toBe(405);
      expect(rateHeaders(wrongMethod).limit).toBe("6");
      expect(rateHeaders(await fetch(`${server.url}/api/v1/openapi.json`)).limit).toBe("6");
      expect(rateHeaders(await fetch(`${server.url}/api/v2/nothing`)).limit).toBe("6");
      expect(rateHeaders(await fetch(`${server.url}/healthz`)).limit).toBeNull();
    });

    it("lets every request through, without RateLimit headers, when the limit is switched off", async () => {
      const store = await newStore();
      const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed({ body: ics("a1") }) }] });
      const server = await serve(store, { rateLimit: null });
      for (let i = 0; i < 8; i++) {
        const res = await post(server, ann.token);
        expect(res.status).toBe(200);
        expect(rateHeaders(res)).toEqual({ limit: null, remaining: null, reset: null });
      }
    });
});

describe("--rate-limit", () => {
  it.each([
    ["6/m", { limit: 6, windowSeconds: 60 }],
    ["2/s", { limit: 2, windowSeconds: 1 }],
    ["100/H", { limit: 100, windowSeconds: 3600 }],
    ["0", null],
    ["0/m", null],
  ])("reads %s", (text, policy) => {
    expect(parseRateLimit(text)).toEqual({ ok: true, policy });
  });

  it.each(["6", "six/m", "-1/m", "1.5/m", "6/d", "6 per minute", ""])("is a usage error (exit 2) for %j", async (value) => {
    expect(parseRateLimit(value).ok).toBe(false);
    const result = await runCli(["serve", "--db", dbPath(), "--port", "0", "--rate-limit", value]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--rate-limit");
    expect(result.stdout).toBe("");
  });
});
