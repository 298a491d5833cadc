// What a property name may be, checked by every door that takes one (CLI, dashboard) before the store writes it.

/**
 * Longest property name, in characters. PostgreSQL indexes (owner_id, name) and refuses an index row past
 * about 2.7 kB, so a name of kilobytes would fail there with a database error while SQLite kept it; 200
 * characters (at most 800 bytes of UTF-8) name any rental and fit on both.
 */
export const MAX_PROPERTY_NAME_LENGTH = 200;

/** Why `name` (already trimmed) cannot name a property, or undefined when it can. */
export function propertyNameProblem(name: string): string | undefined {
  if (name === "") return "the property's name is empty";
  if (name.length > MAX_PROPERTY_NAME_LENGTH) {
    return `the property's name is ${name.length} characters long; use at most ${MAX_PROPERTY_NAME_LENGTH}`;
  }
  return undefined;
}
