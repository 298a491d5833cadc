// The h3 app of API v1 (CONTRACT §2, §14) and the owner dashboard (§9): it composes the doors (the API's routes
// under api/, the dashboard's pages) and wraps every answer with request ids, faults, security headers and logs.
import { H3, type H3Event } from "h3";
import type { FetchLimiter } from "../engine/fetch-limiter.js";
import { isStoreUnavailable } from "../store/errors.js";
import type { Store } from "../store/types.js";
import type { AccessLogLine } from "./access-log.js";
import { isResourcePath, registerApi } from "./api/index.js";
import { registerAvailabilityRoute } from "./availability-route.js";
import type { DashboardMail } from "./mail/links.js";
import { errorPage, isApiPath, maskInvitePath, notFoundPage, registerDashboard } from "./dashboard/index.js";
import { withSecurityHeaders } from "./dashboard/security.js";
import { registerEmbedRoute } from "./embed-route.js";
import { errorResponse, jsonResponse } from "./errors.js";
import type { ServerMetrics } from "./metrics.js";
import { registerMetricsRoute } from "./metrics-route.js";
import { registerOpenApiRoute } from "./openapi/route.js";
import { maskFeedPath, registerOutboundFeedRoute } from "./outbound-route.js";
import { registerCleaningFeedRoute } from "./cleaning-route.js";
import { registerOwnerCalendarRoute } from "./owner-calendar-route.js";
import { DEFAULT_API_RATE_LIMIT, DEFAULT_RATE_LIMIT, memoryRateLimiter, withRateLimitPolicy, type TokenRateLimiter } from "./rate-limit.js";
import { requestIdOf } from "./request-id.js";
import { SYNC_PATH } from "./routes.js";
import { createSyncRunner, type SyncRunner } from "./single-flight.js";

export { SYNC_PATH };

/** What a 503 tells clients to wait before trying again, in seconds (the SDK honours it). */
const RETRY_AFTER_S = 2;

/** Options of `createApp`. */
export interface AppOptions {
  /** Database the API answers from (tokens, owners, calendars). */
  store: Store;
  /** Let feed URLs reach loopback and private addresses. @default false */
  allowPrivateNetworks?: boolean;
  /** Fetch limits shared by every sync. @default createFetchLimiter() (8 at once, 2 per host) */
  limiter?: FetchLimiter;
  /** Receives one access log line per request. @default no access log */
  logger?: (line: AccessLogLine) => void;
  /** Receives faults (a generic 500, or 503 when the database cannot be reached) with the request id, for the operator's log. */
  onError?: (error: unknown, requestId: string) => void;
  /** Clock for token expiry and sync times. @default () => new Date() */
  now?: () => Date;
  /** Deadline of one feed fetch, in milliseconds. @default 20000 */
  feedTimeoutMs?: number;
  /** Longest a direct stay's check waits for its refresh, when the runner is built here. @default 8000 */
  refreshTimeoutMs?: number;
  /** Single-flight runner to share with a scheduler; built from the options above when left out. */
  runner?: SyncRunner;
  /**
   * Counts sync requests per token; `null` for no limit. `storeRateLimiter(store, policy)` gives the one
   * that holds across instances on PostgreSQL. @default 6 a minute per token, in memory
   */
  rateLimiter?: TokenRateLimiter | null;
  /**
   * Counts requests to the resource routes (properties, reservations, availability) per token, apart from
   * sync's; `null` for no limit. @default 120 a minute per token, in memory
   */
  apiRateLimiter?: TokenRateLimiter | null;
  /** Serves `GET /metrics` and counts requests (and runs, when the runner is built here). @default no metrics */
  metrics?: ServerMetrics;
  /** Serve the owner dashboard at `/` (it assumes the app is not mounted under a prefix). @default true */
  dashboard?: boolean;
  /**
   * Believe `X-Forwarded-Proto`, `X-Forwarded-Host` and the last `X-Forwarded-For` entry (one reverse proxy
   * in front): session cookies get `Secure` behind an HTTPS proxy, sign-in throttling counts real clients.
   * @default false
   */
  trustProxy?: boolean;
  /** Mail to owners (CONTRACT §16): "Forgot password?" mails a link when given, else says whom to ask. @default no mail */
  mail?: DashboardMail;
  /** A channel link not read for longer than this is `stale` (CONTRACT §17), in milliseconds. @default 24 h */
  channelStaleAfterMs?: number;
  /**
   * True once the server is stopping (CONTRACT §19): every request but `/healthz` answers 503 and closes its
   * connection, `/readyz` included, so a proxy or an orchestrator sends the next one elsewhere. @default never
   */
  stopping?: () => boolean;
}

// Per-request facts the access log needs, kept off the public event context.
interface RequestState {
  requestId: string;
  ownerId: string | null;
}
const states = new WeakMap<H3Event, RequestState>();

function stateOf(event: H3Event): RequestState {
  let state = states.get(event);
  if (!state) {
    state = { requestId: requestIdOf(event.req.headers), ownerId: null };
    states.set(event, state);
  }
  return state;
}

/** Builds the h3 app serving API v1 and the owner dashboard over `options.store`; mount it in your own h3 app or serve it with `startServer`. */
export function createApp(options: AppOptions): H3 {
  const now = options.now ?? (() => new Date());
  const runner =
    options.runner ??
    createSyncRunner({
      store: options.store,
      allowPrivateNetworks: options.allowPrivateNetworks,
      limiter: options.limiter,
      feedTimeoutMs: options.feedTimeoutMs,
      refreshTimeoutMs: options.refreshTimeoutMs,
      now: options.now,
      ...options.metrics?.syncHooks,
    });
  const rateLimiter = options.rateLimiter === undefined ? memoryRateLimiter(DEFAULT_RATE_LIMIT) : options.rateLimiter;
  const apiRateLimiter = options.apiRateLimiter === undefined ? memoryRateLimiter(DEFAULT_API_RATE_LIMIT) : options.apiRateLimiter;
  // Malformed URLs reach our 404 instead of h3's own 400 body; nothing is printed by h3 itself.
  const app = new H3({ allowMalformedURL: true, silent: true });

  const dashboard = options.dashboard ?? true;
  // The API's paths (and every path without the dashboard) answer JSON; the dashboard's answer HTML.
  const json = (event: H3Event) => !dashboard || isApiPath(event.url.pathname);

  // Wraps every route: request id, unknown paths, faults → generic 500 (503 for an unreachable database),
  // security headers, access log.
  app.use(async (event, next) => {
    const started = performance.now();
    const state = stateOf(event);
    let response: Response;
    try {
      const result = options.stopping?.() && event.url.pathname !== "/healthz" ? stoppingResponse(json(event), state.requestId) : await next();
      if (result instanceof Response) response = result;
      else response = json(event) ? errorResponse(404, "not_found", state.requestId) : notFoundPage();
    } catch (error) {
      options.onError?.(error, state.requestId);
      response = faultResponse(error, json(event), state.requestId);
    }
    // The resource routes tell their own budget (CONTRACT §14); every other /api/ answer sync's.
    withRateLimitPolicy(response, event.url.pathname, isResourcePath(event.url.pathname) ? apiRateLimiter : rateLimiter);
    options.metrics?.countRequest(event.req.method, event.context.matchedRoute?.route, response.status);
    withSecurityHeaders(response);
    if (!response.headers.has("x-request-id")) response.headers.set("x-request-id", state.requestId);
    options.logger?.({
      method: event.req.method,
      path: maskInvitePath(maskFeedPath(event.url.pathname)),
      status: response.status,
      ms: Math.round(performance.now() - started),
      requestId: state.requestId,
      ownerId: state.ownerId,
    });
    return response;
  });

  registerApi(app, {
    store: options.store,
    now,
    runner,
    syncLimiter: rateLimiter,
    resourceLimiter: apiRateLimiter,
    trustProxy: options.trustProxy ?? false,
    channelStaleAfterMs: options.channelStaleAfterMs,
    requestIdOf: (event) => stateOf(event).requestId,
    onOwner: (event, ownerId) => {
      stateOf(event).ownerId = ownerId;
    },
  });

  registerOpenApiRoute(app, (event) => stateOf(event).requestId);
  if (options.metrics) registerMetricsRoute(app, options.metrics, (event) => stateOf(event).requestId);
  registerOwnerCalendarRoute(app, { store: options.store, requestIdOf: (event) => stateOf(event).requestId, now });
  registerOutboundFeedRoute(app, { store: options.store, requestIdOf: (event) => stateOf(event).requestId, now });
  registerCleaningFeedRoute(app, { store: options.store, requestIdOf: (event) => stateOf(event).requestId, now });
  registerAvailabilityRoute(app, { store: options.store, requestIdOf: (event) => stateOf(event).requestId, now });
  registerEmbedRoute(app);
  if (dashboard) {
    registerDashboard(app, {
      store: options.store,
      runner,
      now,
      trustProxy: options.trustProxy ?? false,
      allowPrivateNetworks: options.allowPrivateNetworks ?? false,
      feedTimeoutMs: options.feedTimeoutMs,
      mail: options.mail,
      channelStaleAfterMs: options.channelStaleAfterMs,
    });
  }

  app.get("/healthz", async (event) => {
    const { requestId } = stateOf(event);
    if (!(await options.store.ping())) throw new Error("the database did not answer the health check");
    return jsonResponse(200, { ok: true }, requestId);
  });

  // Readiness, apart from liveness: an orchestrator stops sending work here while the database is out of reach.
  app.get("/readyz", async (event) => {
    const { requestId } = stateOf(event);
    const reachable = await options.store.ping().catch(() => false);
    if (!reachable) return errorResponse(503, "unavailable", requestId, { "retry-after": String(RETRY_AFTER_S) });
    return jsonResponse(200, { ok: true }, requestId);
  });

  return app;
}

function stoppingResponse(json: boolean, requestId: string): Response {
  const headers = { "retry-after": String(RETRY_AFTER_S), connection: "close" };
  const message = "The server is stopping: try again in a moment.";
  return json ? errorResponse(503, "unavailable", requestId, headers, message) : errorPage(503, "Stopping", message, { headers });
}

// A fault as the client reads it: JSON or an HTML page, 503 with Retry-After while the database is unreachable.
function faultResponse(error: unknown, json: boolean, requestId: string): Response {
  if (isStoreUnavailable(error)) {
    const headers = { "retry-after": String(RETRY_AFTER_S) };
    return json
      ? errorResponse(503, "unavailable", requestId, headers)
      : errorPage(503, "Database unavailable", "The server cannot reach its database right now. Try again in a moment.", { headers });
  }
  return json
    ? errorResponse(500, "internal_error", requestId)
    : errorPage(500, "Something went wrong", `The server could not answer. Its log has the details under request id ${requestId}.`);
}
