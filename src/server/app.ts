// The h3 app of API v1 (CONTRACT §2): routes here; auth, errors, request ids and single flight in their own files.
import { H3, type H3Event } from "h3";
import type { FetchLimiter } from "../engine/fetch-limiter.js";
import { isStoreUnavailable } from "../store/errors.js";
import type { Store } from "../store/types.js";
import type { AccessLogLine } from "./access-log.js";
import { authenticate } from "./auth.js";
import { errorResponse, jsonResponse } from "./errors.js";
import { maskFeedPath, registerOutboundFeedRoute } from "./outbound-route.js";
import { requestIdOf } from "./request-id.js";
import { createSyncRunner, type SyncRunner } from "./single-flight.js";

/** The one endpoint of API v1. */
export const SYNC_PATH = "/api/v1/calendars/sync";

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
  /** Single-flight runner to share with a scheduler; built from the options above when left out. */
  runner?: SyncRunner;
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

/** Builds the h3 app serving API v1 over `options.store`; mount it in your own h3 app or serve it with `startServer`. */
export function createApp(options: AppOptions): H3 {
  const now = options.now ?? (() => new Date());
  const runner =
    options.runner ??
    createSyncRunner({
      store: options.store,
      allowPrivateNetworks: options.allowPrivateNetworks,
      limiter: options.limiter,
      feedTimeoutMs: options.feedTimeoutMs,
      now: options.now,
    });
  // Malformed URLs reach our 404 instead of h3's own 400 body; nothing is printed by h3 itself.
  const app = new H3({ allowMalformedURL: true, silent: true });

  // Wraps every route: request id, unknown paths, faults → generic 500 (503 for an unreachable database), access log.
  app.use(async (event, next) => {
    const started = performance.now();
    const state = stateOf(event);
    let response: Response;
    try {
      const result = await next();
      response = result instanceof Response ? result : errorResponse(404, "not_found", state.requestId);
    } catch (error) {
      options.onError?.(error, state.requestId);
      response = isStoreUnavailable(error)
        ? errorResponse(503, "unavailable", state.requestId, { "retry-after": String(RETRY_AFTER_S) })
        : errorResponse(500, "internal_error", state.requestId);
    }
    options.logger?.({
      method: event.req.method,
      path: maskFeedPath(event.url.pathname),
      status: response.status,
      ms: Math.round(performance.now() - started),
      requestId: state.requestId,
      ownerId: state.ownerId,
    });
    return response;
  });

  // The request body is never read: the API takes none, and ignoring it costs nothing.
  app.post(SYNC_PATH, async (event) => {
    const state = stateOf(event);
    const auth = await authenticate(options.store, event.req.headers, state.requestId, now());
    if (!auth.ok) return auth.response;
    state.ownerId = auth.ownerId;
    const response = await runner.run(auth.ownerId, "api");
    return jsonResponse(response.ok ? 200 : 207, response, state.requestId);
  });

  app.all(SYNC_PATH, (event) =>
    errorResponse(405, "method_not_allowed", stateOf(event).requestId, { allow: "POST" }),
  );

  registerOutboundFeedRoute(app, { store: options.store, requestIdOf: (event) => stateOf(event).requestId });

  app.get("/healthz", async (event) => {
    const { requestId } = stateOf(event);
    if (!(await options.store.ping())) throw new Error("the database did not answer the health check");
    return jsonResponse(200, { ok: true }, requestId);
  });

  return app;
}
