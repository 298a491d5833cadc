// GET /api/v1/properties and GET, PATCH /api/v1/properties/{id} (CONTRACT §14, §18).
import { getRouterParam, type H3 } from "h3";
import { listProperties, retrieveProperty, updateProperty } from "../../resources/index.js";
import { readJson } from "./body.js";
import { requestFacts } from "../dashboard/http.js";
import { guarded, queryOf, type ApiContext } from "./guard.js";
import { PROPERTIES_PATH, PROPERTY_PATH } from "../routes.js";

/** Registers the property routes. */
export function registerPropertyRoutes(app: H3, ctx: ApiContext & { trustProxy: boolean }): void {
  app.get(PROPERTIES_PATH, (event) =>
    guarded(ctx, event, "read", async ({ ownerId }) => {
      const feedBase = requestFacts(event, ctx.trustProxy).origin;
      const page = await listProperties(ctx.store, { ownerId, query: queryOf(event), feedBase });
      return page.ok ? { status: 200, body: page.value } : page;
    }),
  );
  app.get(PROPERTY_PATH, (event) =>
    guarded(ctx, event, "read", async ({ ownerId }) => {
      const feedBase = requestFacts(event, ctx.trustProxy).origin;
      const property = await retrieveProperty(ctx.store, { ownerId, propertyId: getRouterParam(event, "id") ?? "", feedBase });
      return property.ok ? { status: 200, body: property.value } : property;
    }),
  );
  app.patch(PROPERTY_PATH, (event) =>
    guarded(ctx, event, "write", async ({ ownerId }) => {
      const body = await readJson(event);
      if (!body.ok) return body;
      const feedBase = requestFacts(event, ctx.trustProxy).origin;
      const property = await updateProperty(ctx.store, { ownerId, propertyId: getRouterParam(event, "id") ?? "", body: body.value, feedBase });
      return property.ok ? { status: 200, body: property.value } : property;
    }),
  );
}
