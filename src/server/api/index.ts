// API v1 (CONTRACT §2, §14): one file per resource over the same store and resource functions the CLI and the
// dashboard call; `registerApi` is all app.ts composes.
import type { H3 } from "h3";
import type { ResourceContext } from "../../resources/index.js";
import { methodNotAllowed } from "../errors.js";
import type { TokenRateLimiter } from "../rate-limit.js";
import { openApiPath, AVAILABILITY_PATH, CHANNELS_PATH, PROPERTIES_PATH, PROPERTY_PATH, PROPERTY_RESERVATIONS_PATH, RESERVATION_PATH } from "../routes.js";
import { PROPERTY_TURNOVERS_PATH, TURNOVERS_PATH } from "../routes.js";
import type { SyncRunner } from "../single-flight.js";
import { registerAvailabilityRoute } from "./availability.js";
import { registerChannelsRoute } from "./channels.js";
import type { ApiContext } from "./guard.js";
import { registerPropertyRoutes } from "./properties.js";
import { registerReservationRoutes } from "./reservations.js";
import { registerSyncRoute } from "./sync.js";
import { registerTurnoverRoutes } from "./turnovers.js";

/** What the API's routes need. */
export interface ApiOptions extends Omit<ApiContext, "limiter"> {
  runner: SyncRunner;
  /** Sync's budget per token (CONTRACT §12). */
  syncLimiter: TokenRateLimiter | null;
  /** The resource routes' budget per token, apart from sync's (CONTRACT §14). */
  resourceLimiter: TokenRateLimiter | null;
  trustProxy: boolean;
}

/** Registers every API v1 route on `app`. */
export function registerApi(app: H3, options: ApiOptions): void {
  const { runner, syncLimiter, resourceLimiter, trustProxy, ...base } = options;
  registerSyncRoute(app, { ...base, runner, limiter: syncLimiter });
  const ctx: ApiContext = { ...base, limiter: resourceLimiter };
  // The refresh before a direct stay's check: the property's calendars, through the runner's limits (CONTRACT §14).
  const resources: ResourceContext = { store: base.store, now: base.now, refresh: runner.refresh };
  registerPropertyRoutes(app, { ...ctx, trustProxy });
  registerAvailabilityRoute(app, ctx);
  registerChannelsRoute(app, { ...ctx, trustProxy });
  registerReservationRoutes(app, ctx, resources);
  registerTurnoverRoutes(app, ctx);
  const allowed: Array<[string, string[]]> = [
    [PROPERTIES_PATH, ["GET"]],
    [PROPERTY_PATH, ["GET", "PATCH"]],
    [AVAILABILITY_PATH, ["GET"]],
    [CHANNELS_PATH, ["GET"]],
    [PROPERTY_RESERVATIONS_PATH, ["GET", "POST"]],
    [RESERVATION_PATH, ["PATCH", "DELETE"]],
    [PROPERTY_TURNOVERS_PATH, ["GET"]],
    [TURNOVERS_PATH, ["GET"]],
  ];
  for (const [path, methods] of allowed) app.all(path, (event) => methodNotAllowed(base.requestIdOf(event), openApiPath(path), methods));
}

/** True for the paths of the resource routes, which count against their own budget. */
export function isResourcePath(pathname: string): boolean {
  return pathname.startsWith("/api/v1/properties") || pathname.startsWith("/api/v1/reservations") || pathname.startsWith(TURNOVERS_PATH);
}
