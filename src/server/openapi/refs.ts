// Turns the nested schemas of schemas.ts into `components.schemas` entries that point at each other by $ref.

/** Copies `schema`, replacing every nested object that is one of `named` (by identity) with a `$ref` to it. */
export function withRefs(schema: object, named: Readonly<Record<string, object>>): unknown {
  const names = new Map(Object.entries(named).map(([name, value]) => [value, name]));
  const visit = (value: unknown, top: boolean): unknown => {
    if (Array.isArray(value)) return value.map((item) => visit(item, false));
    if (value === null || typeof value !== "object") return value;
    const name = top ? undefined : names.get(value);
    if (name !== undefined) return { $ref: `#/components/schemas/${name}` };
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, visit(item, false)]));
  };
  return visit(schema, true);
}
