// Opaque list cursors (CONTRACT §14): the sort key of the last row of a page, as base64url JSON. A cursor
// that does not read back as one is a 400 `bad_request`, never a 500 or an empty page.
import { dateProblem } from "./validate.js";

/** A cursor after the reservation (arrival, id). */
export function reservationCursor(row: { arrival: string; id: string }): string {
  return encode(["r", row.arrival, row.id]);
}

/** The (arrival, id) a reservation cursor names, or undefined when it is not one. */
export function readReservationCursor(cursor: string): { arrival: string; id: string } | undefined {
  const value = decode(cursor);
  if (!Array.isArray(value) || value.length !== 3 || value[0] !== "r") return undefined;
  const [, arrival, id] = value as unknown[];
  if (typeof arrival !== "string" || dateProblem(arrival) || typeof id !== "string" || !ID.test(id)) return undefined;
  return { arrival, id };
}

/** A cursor after the property (name, id). */
export function propertyCursor(row: { name: string; id: string }): string {
  return encode(["p", row.name, row.id]);
}

/** The (name, id) a property cursor names, or undefined when it is not one. */
export function readPropertyCursor(cursor: string): { name: string; id: string } | undefined {
  const value = decode(cursor);
  if (!Array.isArray(value) || value.length !== 3 || value[0] !== "p") return undefined;
  const [, name, id] = value as unknown[];
  if (typeof name !== "string" || typeof id !== "string" || !ID.test(id)) return undefined;
  return { name, id };
}

/** A cursor after the turnover (date, departing reservation id). */
export function turnoverCursor(row: { date: string; departingReservationId: string }): string {
  return encode(["t", row.date, row.departingReservationId]);
}

/** The (date, id) a turnover cursor names, or undefined when it is not one. */
export function readTurnoverCursor(cursor: string): { date: string; id: string } | undefined {
  const value = decode(cursor);
  if (!Array.isArray(value) || value.length !== 3 || value[0] !== "t") return undefined;
  const [, date, id] = value as unknown[];
  if (typeof date !== "string" || dateProblem(date) || typeof id !== "string" || !ID.test(id)) return undefined;
  return { date, id };
}

const ID = /^[A-Za-z0-9_]{1,64}$/;

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
}

function decode(cursor: string): unknown {
  if (cursor.length === 0 || cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    return JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}
