// GET /api/v1/properties/{id}/turnovers and GET /api/v1/turnovers as a function (CONTRACT §18): the API, the
// CLI's local mode and the dashboard's Cleaning page read turnovers through it, a page at a time.
import { addDays, todayAt } from "../engine/nights.js";
import { ownerTurnovers } from "../engine/turnovers.js";
import type { Page, Turnover } from "../resource-types.js";
import type { Property, Store } from "../store/types.js";
import { failure, type ResourceResult } from "./answers.js";
import { readTurnoverCursor, turnoverCursor } from "./cursor.js";
import type { QueryValues } from "./reads.js";
import { dateProblem, nightsBetween, readLimit } from "./validate.js";

/** Days a turnover list spans when `to` is not given (the Cleaning page's), and at most. */
export const DEFAULT_TURNOVER_DAYS = 30;
export const MAX_TURNOVER_DAYS = 366;

/**
 * The owner's turnovers (one property's when `propertyId` is given; 404 for another owner's) dated in
 * [from, to), by date then departing reservation id. `from` defaults to today in each property's zone,
 * `to` to `from` + 30 days.
 */
export async function listTurnovers(
  store: Store,
  input: { ownerId: string; propertyId?: string; query: QueryValues; now?: Date },
): Promise<ResourceResult<Page<Turnover>>> {
  let properties: Property[];
  if (input.propertyId !== undefined) {
    const property = await store.getProperty(input.propertyId);
    if (!property || property.ownerId !== input.ownerId) return failure(404, "not_found", "no such property");
    properties = [property];
  } else {
    properties = await store.listProperties(input.ownerId);
  }
  const { from, to } = input.query;
  for (const [name, value] of [["from", from], ["to", to]] as const) {
    const problem = value === undefined ? null : dateProblem(value);
    if (problem) return badRequest(name, `${name}: ${problem}`);
  }
  if (from !== undefined && to !== undefined && to <= from) return badRequest("to", "to must be after from");
  const limit = readLimit(input.query.limit);
  if (!limit.ok) return badRequest(limit.problem.name, limit.problem.message);
  const after = input.query.cursor === undefined ? undefined : readTurnoverCursor(input.query.cursor);
  if (input.query.cursor !== undefined && !after) return badRequest("cursor", "cursor is not one this API gave out");

  const now = input.now ?? new Date();
  const ranges = properties.map((p) => {
    const start = from ?? todayAt(now, p.timeZone);
    return { from: start, to: to ?? addDays(start, DEFAULT_TURNOVER_DAYS) };
  });
  if (ranges.some((r) => nightsBetween(r.from, r.to) > MAX_TURNOVER_DAYS)) return badRequest("to", `at most ${MAX_TURNOVER_DAYS} days from from`);
  if (properties.length === 0) return { ok: true, value: { data: [], nextCursor: null } };
  const earliest = ranges.reduce((min, r) => (r.from < min ? r.from : min), ranges[0]!.from);
  const bookings = await store.turnoverBookings({ ownerId: input.ownerId, propertyId: input.propertyId, departingFrom: earliest });
  const all = ownerTurnovers(
    bookings,
    properties.map((p, i) => ({ propertyId: p.id, checkInTime: p.checkInTime, checkOutTime: p.checkOutTime, bufferNights: p.bufferNights, range: ranges[i]! })),
  );
  const rest = after ? all.filter((t) => t.date > after.date || (t.date === after.date && t.departingReservationId > after.id)) : all;
  const data = rest.slice(0, limit.value);
  return { ok: true, value: { data, nextCursor: rest.length > data.length ? turnoverCursor(data.at(-1)!) : null } };
}

const badRequest = (field: string, message: string) => failure(400, "bad_request", message, { field });
