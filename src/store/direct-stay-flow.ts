// The check-then-write of a direct stay (CONTRACT §14), once for both dialects: each store runs it inside one
// transaction that serialises the property's direct stays (SQLite: BEGIN IMMEDIATE; PostgreSQL: the
// property row locked), over statements of its own (`DirectStayOps`).
import { bufferedRange, takenBy } from "../engine/availability.js";
import type { ReservationKind, ReservationStatus } from "../engine/model.js";
import type { NightsConflict, Reservation, ReservationSource } from "../resource-types.js";
import type { WebhookEvent } from "../types.js";
import type { DirectStayChange, DirectStayOutcome, DirectStayWrite, IdempotencyClaim, IdempotencyRecord } from "./direct-stay-types.js";

type Awaitable<T> = T | Promise<T>;

/** A reservation holding nights, as the check reads it. */
export interface HolderRow {
  id: string;
  source: ReservationSource;
  status: ReservationStatus;
  arrival: string;
  departure: string;
  echoOf: string | null;
  kind: ReservationKind;
}

/** A reservation with what the flow needs around it. */
export interface ReservationContext {
  reservation: Reservation;
  ownerId: string;
  propertyName: string;
}

/** The statements the flow runs, inside the caller's transaction. */
export interface DirectStayOps {
  /** The property's owner and name; PostgreSQL locks its row (FOR NO KEY UPDATE) until the transaction ends. */
  lockProperty(propertyId: string): Awaitable<{ ownerId: string; name: string; bufferNights: number } | undefined>;
  reservation(id: string): Awaitable<ReservationContext | undefined>;
  findKey(ownerId: string, claim: IdempotencyClaim): Awaitable<IdempotencyRecord | undefined>;
  saveKey(ownerId: string, claim: IdempotencyClaim, answer: { status: number; body: unknown }, at: Date): Awaitable<void>;
  /** Active reservations of the property's calendars with a night in [arrival, departure). */
  holders(propertyId: string, arrival: string, departure: string): Awaitable<HolderRow[]>;
  /** Status of each of `ids` that exists. */
  statuses(ids: string[]): Awaitable<Map<string, ReservationStatus>>;
  /** The property's direct calendar, created on its first stay. */
  directCalendar(propertyId: string, at: Date): Awaitable<string>;
  insert(row: { id: string; calendarId: string; stay: DirectStayWrite["action"] & { type: "create" } }, at: Date): Awaitable<void>;
  update(id: string, fields: { arrival: string; departure: string; summary: string; note: string | null }, at: Date): Awaitable<void>;
  cancel(id: string, at: Date): Awaitable<void>;
  outbox(ownerId: string, events: WebhookEvent[]): Awaitable<void>;
}

/** Runs one direct-stay write over `ops`; `newId` names a new stay. */
export async function runDirectStayWrite(ops: DirectStayOps, write: DirectStayWrite, newId: () => string): Promise<DirectStayOutcome> {
  const { action, at, idempotency } = write;
  let ownerId: string;
  let propertyId: string;
  let propertyName: string;
  let current: ReservationContext | undefined;
  let bufferNights = 0;
  if (action.type === "create") {
    const property = await ops.lockProperty(action.propertyId);
    if (!property || property.ownerId !== write.ownerId) return { type: "not_found" };
    ({ ownerId, name: propertyName, bufferNights } = property);
    propertyId = action.propertyId;
  } else {
    const found = await ops.reservation(action.reservationId);
    if (!found || found.ownerId !== write.ownerId) return { type: "not_found" };
    propertyId = found.reservation.propertyId;
    bufferNights = (await ops.lockProperty(propertyId))?.bufferNights ?? 0;
    // Read again under the lock: a request that held it may have changed the stay.
    current = (await ops.reservation(action.reservationId))!;
    ({ ownerId, propertyName } = current);
  }

  if (idempotency) {
    const kept = await ops.findKey(ownerId, idempotency);
    if (kept) return kept.requestHash === idempotency.requestHash ? { type: "replay", record: kept } : { type: "key_reused" };
  }
  const outcome = await decide();
  if (outcome.type === "done" && outcome.change) await ops.outbox(ownerId, write.events(outcome.change));
  const answer = idempotency?.answer(outcome);
  if (idempotency && answer) await ops.saveKey(ownerId, idempotency, answer, at);
  return outcome;

  async function decide(): Promise<DirectStayOutcome> {
    if (action.type === "create") {
      const conflicts = await check(action.stay.arrival, action.stay.departure, null);
      if (conflicts.length > 0) return { type: "conflict", conflicts };
      const calendarId = await ops.directCalendar(propertyId, at);
      const id = newId();
      await ops.insert({ id, calendarId, stay: action }, at);
      return done("created", id);
    }
    const before = current!.reservation;
    if (before.source !== "direct") return { type: "not_direct", reservation: before };
    if (action.type === "cancel") {
      // Cancelling twice answers the cancelled stay and changes nothing.
      if (before.status === "cancelled") return { type: "done", change: null, reservation: before };
      await ops.cancel(before.id, at);
      return done("cancelled", before.id, before);
    }
    if (before.status === "cancelled") return { type: "cancelled", reservation: before };
    const { changes } = action;
    const next = {
      arrival: changes.arrival ?? before.arrival,
      departure: changes.departure ?? before.departure,
      summary: changes.summary ?? before.summary,
      note: changes.note === undefined ? before.note : changes.note,
    };
    const same = next.arrival === before.arrival && next.departure === before.departure;
    if (same && next.summary === before.summary && next.note === before.note) return { type: "done", change: null, reservation: before };
    // Nights the stay already holds need no check; a stay never conflicts with itself.
    if (!same) {
      const conflicts = await check(next.arrival, next.departure, before.id);
      if (conflicts.length > 0) return { type: "conflict", conflicts };
    }
    await ops.update(before.id, next, at);
    return done("updated", before.id, before);
  }

  async function check(arrival: string, departure: string, self: string | null): Promise<NightsConflict[]> {
    // Bookings whose buffer reaches the asked nights hold them too (CONTRACT §18), so read that much wider.
    const wide = bufferedRange({ from: arrival, to: departure }, bufferNights);
    const rows = (await ops.holders(propertyId, wide.from, wide.to)).filter((row) => row.id !== self);
    const present = new Set(rows.map((row) => row.id));
    const missing = [...new Set(rows.flatMap((row) => (row.echoOf && !present.has(row.echoOf) ? [row.echoOf] : [])))];
    const targetStatus = missing.length > 0 ? await ops.statuses(missing) : new Map<string, ReservationStatus>();
    const taken = new Set(takenBy(rows, { from: arrival, to: departure, targetStatus, bufferNights }).map((row) => row.id));
    return rows
      .filter((row) => taken.has(row.id))
      .sort((a, b) => compare(a.arrival, b.arrival) || compare(a.id, b.id))
      .map(({ id, source, arrival, departure }) => ({ reservationId: id, source, arrival, departure }));
  }

  async function done(type: DirectStayChange["type"], id: string, previous?: Reservation): Promise<DirectStayOutcome> {
    const reservation = (await ops.reservation(id))!.reservation;
    return { type: "done", change: { type, reservation, propertyName, ...(previous ? { previous } : {}) }, reservation };
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
