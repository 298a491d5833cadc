// The `--property ID` lookup of several commands, apart from the `property` group so that they do not load it.
import type { Property, Store } from "../store/types.js";
import { CliFailure } from "./context.js";

/** The property with this id, or a failure that tells where to find ids. */
export async function requireProperty(store: Store, id: string): Promise<Property> {
  const property = await store.getProperty(id);
  if (!property) throw new CliFailure(`no property "${id}" (see: calsync property list)`, 1);
  return property;
}
