// Per-token rate limit of the sync operation (CONTRACT §12), behind a small interface so that the
// in-memory count of one process can be swapped for a shared one (RateLimiterPostgres) on PostgreSQL.
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Store } from "../store/types.js";
import { errorResponse } from "./errors.js";
import type { RateLimitPolicy } from "./rate-limit-policy.js";

export { DEFAULT_API_RATE_LIMIT, DEFAULT_RATE_LIMIT, parseRateLimit, type RateLimitPolicy } from "./rate-limit-policy.js";

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
export async function storeRateLimiter(store: Pick<Store, "sharedRateLimiter">, policy: RateLimitPolicy, keyPrefix?: string): Promise<TokenRateLimiter> {
  assertPolicy(policy);
  const shared = await store.sharedRateLimiter({ ...policy, keyPrefix });
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
    // CONTRACT §12: every API answer carries all three. No token was counted by this one, so it tells a
    // whole window's allowance: what a token that has not been used yet has.
    const { limit, windowSeconds } = limiter.policy;
    for (const [name, value] of Object.entries(rateLimitHeaders({ allowed: true, limit, remaining: limit, resetSeconds: windowSeconds }))) {
      response.headers.set(name, value);
    }
  }
  return response;
}
