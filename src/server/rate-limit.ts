// Per-token rate limit of the sync operation (CONTRACT §12), behind a small interface so that the
// in-memory count of one process can be swapped for a shared one (RateLimiterPostgres) on PostgreSQL.
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Store } from "../store/types.js";
import { errorResponse } from "./errors.js";

/** How many sync requests one token may make per window. */
export interface RateLimitPolicy {
  /** Requests allowed per window (at least 1). */
  limit: number;
  /** Length of the window in seconds; it starts with the token's first request. */
  windowSeconds: number;
}

/** The default of `calsync serve` and `createApp`: 6 sync requests a minute per token. */
export const DEFAULT_RATE_LIMIT: RateLimitPolicy = { limit: 6, windowSeconds: 60 };

/** Where one request leaves its token. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in this window after this one. */
  remaining: number;
  /** Whole seconds (rounded up) until the window ends. */
  resetSeconds: number;
}

/** Counts sync requests per token. */
export interface TokenRateLimiter {
  readonly policy: RateLimitPolicy;
  /** Counts one request of `tokenId` and says whether it is within the policy. */
  consume(tokenId: string): Promise<RateLimitDecision>;
}

/**
 * A limiter over any rate-limiter-flexible backend: `RateLimiterMemory` for one process, or
 * `RateLimiterPostgres` (same `points`/`duration`) so the limit holds across instances.
 */
export function tokenRateLimiter(backend: RateLimiterAbstract): TokenRateLimiter {
  const policy = { limit: backend.points, windowSeconds: backend.duration };
  const decision = (res: RateLimiterRes, allowed: boolean): RateLimitDecision => ({
    allowed,
    limit: policy.limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)),
  });
  return {
    policy,
    async consume(tokenId) {
      try {
        return decision(await backend.consume(tokenId), true);
      } catch (rejection) {
        // The library rejects with its result when the limit is reached, and with an Error when its store fails.
        if (rejection instanceof RateLimiterRes) return decision(rejection, false);
        throw rejection;
      }
    },
  };
}

/** An in-memory limiter: counts in this process only, which is all a SQLite-backed server needs. */
export function memoryRateLimiter(policy: RateLimitPolicy): TokenRateLimiter {
  assertPolicy(policy);
  return tokenRateLimiter(new RateLimiterMemory({ points: policy.limit, duration: policy.windowSeconds }));
}

/**
 * The limiter a server on `store` should use: counts in the database when the store shares them
 * across instances (PostgreSQL), else in this process's memory (SQLite).
 */
export async function storeRateLimiter(store: Pick<Store, "sharedRateLimiter">, policy: RateLimitPolicy): Promise<TokenRateLimiter> {
  assertPolicy(policy);
  const shared = await store.sharedRateLimiter(policy);
  return shared ? tokenRateLimiter(shared) : memoryRateLimiter(policy);
}

function assertPolicy({ limit, windowSeconds }: RateLimitPolicy): void {
  if (!Number.isSafeInteger(limit) || limit < 1 || !Number.isSafeInteger(windowSeconds) || windowSeconds < 1) {
    throw new Error(`invalid rate limit ${limit} per ${windowSeconds} s: both must be whole numbers of at least 1`);
  }
}

/** The headers telling a token where it stands; a refused request also gets `Retry-After`. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    "ratelimit-limit": String(decision.limit),
    "ratelimit-remaining": String(decision.remaining),
    "ratelimit-reset": String(decision.resetSeconds),
  };
  if (!decision.allowed) headers["retry-after"] = String(Math.max(1, decision.resetSeconds));
  return headers;
}

/** Counts a sync request of `tokenId`: the 429 answer when it is over the policy, else the headers its answer carries. */
export async function limitSyncRequest(
  limiter: TokenRateLimiter | null,
  tokenId: string,
  requestId: string,
): Promise<{ refused: Response } | { headers: Record<string, string> }> {
  if (!limiter) return { headers: {} };
  const decision = await limiter.consume(tokenId);
  const headers = rateLimitHeaders(decision);
  if (decision.allowed) return { headers };
  const { limit, windowSeconds } = limiter.policy;
  const message = `this API token made more than ${limit} sync requests in ${windowSeconds} s; retry after ${headers["retry-after"]} s`;
  return { refused: errorResponse(429, "rate_limited", requestId, headers, message) };
}

/** Adds `RateLimit-Limit` to an `/api/` answer that no token's count was told on (401, 404, 405, the OpenAPI document). */
export function withRateLimitPolicy(response: Response, pathname: string, limiter: TokenRateLimiter | null): Response {
  if (limiter && pathname.startsWith("/api/") && !response.headers.has("ratelimit-limit")) {
    response.headers.set("ratelimit-limit", String(limiter.policy.limit));
  }
  return response;
}

/** Reads `N/s`, `N/m` or `N/h` (`0` or `0/m`: no limit): the policy, `null` for none, or why the text is wrong. */
export function parseRateLimit(text: string): { ok: true; policy: RateLimitPolicy | null } | { ok: false; message: string } {
  const value = text.trim();
  if (value === "0") return { ok: true, policy: null };
  const match = /^(\d+)\/([smh])$/i.exec(value);
  const limit = Number(match?.[1]);
  if (!match || !Number.isSafeInteger(limit)) {
    return { ok: false, message: `invalid rate limit "${text}": use requests per second, minute or hour, e.g. 6/m, 2/s, 100/h, or 0 for none` };
  }
  const windowSeconds = { s: 1, m: 60, h: 3600 }[match[2]!.toLowerCase() as "s" | "m" | "h"];
  return { ok: true, policy: limit === 0 ? null : { limit, windowSeconds } };
}
