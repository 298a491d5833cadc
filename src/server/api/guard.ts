// What every API v1 resource route does before its own work (CONTRACT §14): the token (401), its scope (403
// `insufficient_scope` naming it), the resource routes' own rate budget per token (429), and the answer as
// JSON with the request id and RateLimit headers. Routes return values; this turns them into responses.
import type { H3Event } from "h3";
import type { TokenScope } from "../../resource-types.js";
import type { ResourceFailure } from "../../resources/answers.js";
import { failure, failureBody } from "../../resources/answers.js";
import type { Store } from "../../store/types.js";
import { authenticate } from "../auth.js";
import { errorResponse, jsonResponse } from "../errors.js";
import { rateLimitHeaders, type TokenRateLimiter } from "../rate-limit.js";

/** What the resource routes share. */
export interface ApiContext {
  store: Store;
  now: () => Date;
  /** Counts resource requests per token, apart from sync's budget; null for no limit. */
  limiter: TokenRateLimiter | null;
  requestIdOf(event: H3Event): string;
  /** A channel link not read for longer than this is `stale` (CONTRACT §17). @default 24 h */
  channelStaleAfterMs?: number;
  /** Tells the app whose request this is (access log). */
  onOwner(event: H3Event, ownerId: string): void;
}

/** The caller of a resource route, once admitted. */
export interface Caller {
  ownerId: string;
  tokenId: string;
  requestId: string;
}

/** A route's answer: a status and a JSON body, or a refusal. */
export type RouteAnswer = { status: number; body: unknown } | ResourceFailure;

/** Admits the request for `scope` and answers what `work` returns. */
export async function guarded(ctx: ApiContext, event: H3Event, scope: TokenScope, work: (caller: Caller) => Promise<RouteAnswer>): Promise<Response> {
  const requestId = ctx.requestIdOf(event);
  const auth = await authenticate(ctx.store, event.req.headers, requestId, ctx.now());
  if (!auth.ok) return auth.response;
  ctx.onOwner(event, auth.ownerId);
  let headers: Record<string, string> = {};
  if (ctx.limiter) {
    const decision = await ctx.limiter.consume(auth.tokenId);
    headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      const { limit, windowSeconds } = ctx.limiter.policy;
      const message = `this API token made more than ${limit} requests to the resource routes in ${windowSeconds} s; retry after ${headers["retry-after"]} s`;
      return errorResponse(429, "rate_limited", requestId, headers, message);
    }
  }
  if (!auth.scopes.includes(scope)) {
    return errorResponse(403, "insufficient_scope", requestId, headers, `this API token lacks the "${scope}" scope this route needs`);
  }
  const answer = repeatedParameter(event) ?? (await work({ ownerId: auth.ownerId, tokenId: auth.tokenId, requestId }));
  if ("ok" in answer && answer.ok === false) return jsonResponse(answer.status, failureBody(answer), requestId, headers);
  const { status, body } = answer as { status: number; body: unknown };
  return jsonResponse(status, body, requestId, headers);
}

/** The query string's values by name (`guarded` has refused a repeated name before a route reads them). */
export function queryOf(event: H3Event): Record<string, string | undefined> {
  return Object.fromEntries(event.url.searchParams);
}

// Reading one of two values would quietly ignore the other (`limit=1&limit=abc` answered 200), so neither is read.
function repeatedParameter(event: H3Event): ResourceFailure | undefined {
  const seen = new Set<string>();
  for (const name of event.url.searchParams.keys()) {
    const shown = name.slice(0, 40);
    if (seen.has(name)) return failure(400, "bad_request", `the query parameter ${JSON.stringify(shown)} is given more than once; give it once`, { field: shown });
    seen.add(name);
  }
  return undefined;
}
