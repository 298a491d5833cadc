// A property's reservations (GET, POST) and one reservation (PATCH, DELETE) (CONTRACT §14). Writes go through
// the resource functions: the owner's sync first (through the runner's single flight), then check and write.
import { getRouterParam, type H3, type H3Event } from "h3";
import {
  cancelDirectStay,
  createDirectStay,
  listReservations,
  stayAnswer,
  updateDirectStay,
  type IdempotencyInput,
  type ResourceContext,
} from "../../resources/index.js";
import { idempotencyKeyOf, readJson } from "./body.js";
import { guarded, queryOf, type ApiContext, type RouteAnswer } from "./guard.js";
import { PROPERTY_RESERVATIONS_PATH, RESERVATION_PATH } from "../routes.js";

/** Registers the reservation routes; `resources` refreshes through the app's sync runner. */
export function registerReservationRoutes(app: H3, ctx: ApiContext, resources: ResourceContext): void {
  app.get(PROPERTY_RESERVATIONS_PATH, (event) =>
    guarded(ctx, event, "read", async ({ ownerId }) => {
      const page = await listReservations(ctx.store, { ownerId, propertyId: getRouterParam(event, "id") ?? "", query: queryOf(event) });
      return page.ok ? { status: 200, body: page.value } : page;
    }),
  );
  app.post(PROPERTY_RESERVATIONS_PATH, (event) =>
    guarded(ctx, event, "write", (caller) =>
      withRequest(event, true, async (body, idempotency) =>
        stayAnswer(await createDirectStay(resources, { ownerId: caller.ownerId, propertyId: getRouterParam(event, "id") ?? "", body, idempotency })),
      ),
    ),
  );
  app.patch(RESERVATION_PATH, (event) =>
    guarded(ctx, event, "write", (caller) =>
      withRequest(event, true, async (body, idempotency) =>
        stayAnswer(await updateDirectStay(resources, { ownerId: caller.ownerId, reservationId: getRouterParam(event, "id") ?? "", body, idempotency })),
      ),
    ),
  );
  // DELETE takes no body; any is ignored (and not part of the idempotency check).
  app.delete(RESERVATION_PATH, (event) =>
    guarded(ctx, event, "write", (caller) =>
      withRequest(event, false, async (_body, idempotency) =>
        stayAnswer(await cancelDirectStay(resources, { ownerId: caller.ownerId, reservationId: getRouterParam(event, "id") ?? "", idempotency })),
      ),
    ),
  );
}

// Reads the Idempotency-Key (and the JSON body when `withBody`) before handing them to `work`.
async function withRequest(
  event: H3Event,
  withBody: boolean,
  work: (body: unknown, idempotency: IdempotencyInput | undefined) => Promise<RouteAnswer>,
): Promise<RouteAnswer> {
  const key = idempotencyKeyOf(event);
  if (!key.ok) return key;
  const body = withBody ? await readJson(event) : { ok: true as const, value: undefined };
  if (!body.ok) return body;
  const idempotency = key.key === undefined ? undefined : { key: key.key, route: `${event.req.method} ${event.url.pathname}` };
  return work(body.value, idempotency);
}
