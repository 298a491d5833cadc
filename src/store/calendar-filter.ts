// The WHERE of a calendar listing, shared by both stores' `listCalendars`.

/**
 * The WHERE of a calendar listing with only the filters given (owner, then property: `p(n)` is the nth
 * placeholder); the direct calendar (CONTRACT §14) only when asked for: it has no feed to show or check.
 */
export function calendarFilter(given: { owner: boolean; property: boolean; direct: boolean }, p: (n: number) => string): string {
  const where: string[] = [];
  if (given.owner) where.push(`p.owner_id = ${p(where.length + 1)}`);
  if (given.property) where.push(`c.property_id = ${p(where.length + 1)}`);
  if (!given.direct) where.push("c.source <> 'direct'");
  return where.length > 0 ? where.join(" AND ") : "TRUE";
}
