// POST /api/v1/calendars/sync (CONTRACT §2): the owner's sync through the runner's single flight, with sync's own
// rate budget per token (§12) and the `sync` scope (§14).
import type { H3, H3Event } from "h3";
import { authenticate } from "../auth.js";
import { errorResponse, jsonResponse, methodNotAllowed } from "../errors.js";
import { limitSyncRequest, type TokenRateLimiter } from "../rate-limit.js";
import { SYNC_PATH } from "../routes.js";
import type { SyncRunner } from "../single-flight.js";
import type { ApiContext } from "./guard.js";

/** Registers the sync route and its 405 for other methods. */
export function registerSyncRoute(app: H3, ctx: Omit<ApiContext, "limiter"> & { runner: SyncRunner; limiter: TokenRateLimiter | null }): void {
  // The request body is never read: the API takes none, and ignoring it costs nothing.
  app.post(SYNC_PATH, async (event: H3Event) => {
    const requestId = ctx.requestIdOf(event);
    const auth = await authenticate(ctx.store, event.req.headers, requestId, ctx.now());
    if (!auth.ok) return auth.response;
    ctx.onOwner(event, auth.ownerId);
    // Counted before joining or starting a run: a request that joins a running sync still counts.
    const limit = await limitSyncRequest(ctx.limiter, auth.tokenId, requestId);
    if ("refused" in limit) return limit.refused;
    if (!auth.scopes.includes("sync")) {
      return errorResponse(403, "insufficient_scope", requestId, limit.headers, 'this API token lacks the "sync" scope this route needs');
    }
    const response = await ctx.runner.run(auth.ownerId, "api");
    return jsonResponse(response.ok ? 200 : 207, response, requestId, limit.headers);
  });
  app.all(SYNC_PATH, (event) => methodNotAllowed(ctx.requestIdOf(event), SYNC_PATH, ["POST"]));
}
