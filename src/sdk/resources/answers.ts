// A JSON 2xx from something else (a captive portal, a wrong baseURL, an older server) must not pass
// as a resource: each answer is checked for the fields a caller reads before it is returned.
import type { ChannelList } from "../../channel-types.js";
import type { Availability, Page, Property, Reservation } from "../../resource-types.js";
import { APIError, CalsyncError } from "../errors.js";
import type { JsonAnswer } from "../request.js";

type Guard<T> = (body: unknown) => body is T;

/** The answer's body when `guard` accepts it, else `APIError` (`unexpected_response`). */
export function bodyAs<T>(answer: JsonAnswer, guard: Guard<T>): T {
  if (!guard(answer.body)) throw APIError.from(answer.status, answer.body, answer.headers);
  return answer.body;
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

export const isProperty: Guard<Property> = (body): body is Property =>
  isObject(body) && typeof body.id === "string" && typeof body.name === "string" && Array.isArray(body.calendars);

export const isReservation: Guard<Reservation> = (body): body is Reservation =>
  isObject(body) &&
  typeof body.id === "string" &&
  typeof body.arrival === "string" &&
  typeof body.departure === "string" &&
  typeof body.status === "string";

export const isAvailability: Guard<Availability> = (body): body is Availability =>
  isObject(body) && typeof body.propertyId === "string" && Array.isArray(body.nights);

/** `GET /api/v1/properties/{id}/channels`. */
export const isChannelList: Guard<ChannelList> = (body): body is ChannelList =>
  isObject(body) && Array.isArray(body.data) && body.data.every((c) => isObject(c) && typeof c.source === "string" && Array.isArray(c.exposedNights));

/** A `{data, nextCursor}` page whose every item `item` accepts. */
export function pageOf<T>(item: Guard<T>): Guard<Page<T>> {
  return (body): body is Page<T> =>
    isObject(body) &&
    Array.isArray(body.data) &&
    body.data.every(item) &&
    (body.nextCursor === null || (typeof body.nextCursor === "string" && body.nextCursor !== ""));
}

/** `id` as one path segment; an empty one would turn `…/properties/{id}` into the list. */
export function segment(name: string, id: string): string {
  if (typeof id !== "string" || id.trim() === "") throw new CalsyncError(`calsync: ${name} must be a non-empty id`);
  return encodeURIComponent(id);
}
