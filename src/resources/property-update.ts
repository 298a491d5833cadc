// PATCH /api/v1/properties/{id} as a function (CONTRACT §18): the CLI's local mode and the dashboard write
// a property's settings through the same check, so bad input is refused alike and nothing is stored.
import type { Property } from "../resource-types.js";
import type { Store } from "../store/types.js";
import { failure, type ResourceResult } from "./answers.js";
import { readPropertyChanges } from "./property-settings.js";
import { ownedProperty, propertyOf } from "./reads.js";

/** Changes a property of the owner (404 for another owner's, 422 `invalid_request` naming the field at fault). */
export async function updateProperty(
  store: Store,
  input: { ownerId: string; propertyId: string; body: unknown; feedBase: string },
): Promise<ResourceResult<Property>> {
  const property = await ownedProperty(store, input.ownerId, input.propertyId);
  if (!property) return failure(404, "not_found", "no such property");
  const changes = readPropertyChanges(input.body);
  if (!changes.ok) return failure(422, "invalid_request", changes.problem.message, { field: changes.problem.name });
  const updated = await store.updateProperty(property.id, changes.value);
  if (!updated) return failure(404, "not_found", "no such property");
  return { ok: true, value: await propertyOf(store, updated.property, input.feedBase) };
}
