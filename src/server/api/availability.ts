// GET /api/v1/properties/{id}/availability (CONTRACT §14): which nights are free, by the one availability rule.
import { getRouterParam, type H3 } from "h3";
import { propertyAvailability } from "../../resources/index.js";
import { guarded, queryOf, type ApiContext } from "./guard.js";
import { AVAILABILITY_PATH } from "../routes.js";

/** Registers the availability route. */
export function registerAvailabilityRoute(app: H3, ctx: ApiContext): void {
  app.get(AVAILABILITY_PATH, (event) =>
    guarded(ctx, event, "read", async ({ ownerId }) => {
      const input = { ownerId, propertyId: getRouterParam(event, "id") ?? "", query: queryOf(event), now: ctx.now() };
      const availability = await propertyAvailability(ctx.store, input);
      return availability.ok ? { status: 200, body: availability.value } : availability;
    }),
  );
}
