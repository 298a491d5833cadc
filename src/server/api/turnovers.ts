// GET /api/v1/properties/{id}/turnovers and GET /api/v1/turnovers (CONTRACT §18): read scope, cursors as §14's lists.
import { getRouterParam, type H3 } from "h3";
import { listTurnovers } from "../../resources/index.js";
import { guarded, queryOf, type ApiContext } from "./guard.js";
import { PROPERTY_TURNOVERS_PATH, TURNOVERS_PATH } from "../routes.js";

/** Registers the turnover routes. */
export function registerTurnoverRoutes(app: H3, ctx: ApiContext): void {
  app.get(PROPERTY_TURNOVERS_PATH, (event) =>
    guarded(ctx, event, "read", async ({ ownerId }) => {
      const page = await listTurnovers(ctx.store, { ownerId, propertyId: getRouterParam(event, "id") ?? "", query: queryOf(event), now: ctx.now() });
      return page.ok ? { status: 200, body: page.value } : page;
    }),
  );
  app.get(TURNOVERS_PATH, (event) =>
    guarded(ctx, event, "read", async ({ ownerId }) => {
      const page = await listTurnovers(ctx.store, { ownerId, query: queryOf(event), now: ctx.now() });
      return page.ok ? { status: 200, body: page.value } : page;
    }),
  );
}
