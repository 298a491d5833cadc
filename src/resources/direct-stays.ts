// Direct stays (CONTRACT §14) for every door: the API, the CLI's local mode and the dashboard call these.
// Refresh first (the property's channel calendars, see property-refresh.ts), then check and write in one transaction.
import { createHash } from "node:crypto";
import { todayAt } from "../engine/nights.js";
import type { RefreshWarning } from "../resource-types.js";
import type { DirectStayOutcome, DirectStayWrite, IdempotencyClaim, Store } from "../store/types.js";
import { failure, replayedStay, stayAnswer, type StayResult } from "./answers.js";
import { directStayEvents } from "./stay-events.js";
import { readStayCreate, readStayUpdate, type InputProblem } from "./validate.js";

/** What the resource functions need from their door. */
export interface ResourceContext {
  store: Store;
  /**
   * Brings the property's channel calendars up to date, with the fetch limits and conditional requests of every
   * sync, and names those it could not (CONTRACT §14): the server passes its runner's `refresh`, the CLI's local
   * mode a `createPropertyRefresh` of its own.
   */
  refresh(ownerId: string, propertyId: string): Promise<RefreshWarning[]>;
  /** Clock. @default () => new Date() */
  now?: () => Date;
}

/** An `Idempotency-Key` and the request it came with. */
export interface IdempotencyInput {
  /** The header's value (1–255 characters; the door checks it). */
  key: string;
  /** `METHOD path` of the request, e.g. `POST /api/v1/properties/prp_…/reservations`. */
  route: string;
}

/** How long an idempotency key's answer is kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

/** Creates a direct stay on a property of `ownerId` from a POST body (any JSON value; it is checked here). */
export async function createDirectStay(
  ctx: ResourceContext,
  input: { ownerId: string; propertyId: string; body: unknown; idempotency?: IdempotencyInput },
): Promise<StayResult> {
  const now = (ctx.now ?? (() => new Date()))();
  const property = await ctx.store.getProperty(input.propertyId);
  if (!property || property.ownerId !== input.ownerId) return notFound("property");
  const early = await keptAnswer(ctx, input.ownerId, input.idempotency, input.body, now);
  if (early) return early;
  const stay = readStayCreate(input.body, todayAt(now, property.timeZone));
  if (!stay.ok) return invalid(stay.problem);
  const { refresh, ...fields } = stay.value;
  const warnings = refresh ? await refreshProperty(ctx, input.ownerId, property.id) : [];
  const outcome = await ctx.store.writeDirectStay(writeOf(ctx, input.ownerId, { type: "create", propertyId: property.id, stay: fields }, now, input, warnings));
  return resultOf(outcome, warnings, 201);
}

/** Changes a direct stay's nights, summary or note from a PATCH body; new nights are checked as on create. */
export async function updateDirectStay(
  ctx: ResourceContext,
  input: { ownerId: string; reservationId: string; body: unknown; idempotency?: IdempotencyInput },
): Promise<StayResult> {
  const now = (ctx.now ?? (() => new Date()))();
  const found = await ctx.store.getReservation(input.reservationId);
  if (!found || found.ownerId !== input.ownerId) return notFound("reservation");
  const early = await keptAnswer(ctx, input.ownerId, input.idempotency, input.body, now);
  if (early) return early;
  const current = found.reservation;
  const property = await ctx.store.getProperty(current.propertyId);
  const update = readStayUpdate(input.body, current, todayAt(now, property?.timeZone));
  if (!update.ok) return invalid(update.problem);
  const { refresh, nightsChanged, ...changes } = update.value;
  // A channel's stay is read-only whatever the body: refuse before any refresh.
  const warnings = refresh && nightsChanged && current.source === "direct" ? await refreshProperty(ctx, input.ownerId, current.propertyId) : [];
  const outcome = await ctx.store.writeDirectStay(writeOf(ctx, input.ownerId, { type: "update", reservationId: current.id, changes }, now, input, warnings));
  return resultOf(outcome, warnings, 200);
}

/** Cancels a direct stay (its nights are free again); cancelling a cancelled one answers it unchanged. */
export async function cancelDirectStay(
  ctx: ResourceContext,
  input: { ownerId: string; reservationId: string; idempotency?: IdempotencyInput },
): Promise<StayResult> {
  const now = (ctx.now ?? (() => new Date()))();
  const outcome = await ctx.store.writeDirectStay(writeOf(ctx, input.ownerId, { type: "cancel", reservationId: input.reservationId }, now, { ...input, body: null }, []));
  return resultOf(outcome, [], 200);
}

/**
 * Refreshes the property through `ctx.refresh`; the calendars it could not bring up to date are checked as last
 * stored. A refresh that fails as a whole names them all.
 */
export async function refreshProperty(ctx: ResourceContext, ownerId: string, propertyId: string): Promise<RefreshWarning[]> {
  try {
    return await ctx.refresh(ownerId, propertyId);
  } catch {
    const calendars = await ctx.store.listCalendars({ propertyId });
    return calendars.map((c) => ({ code: "calendar_not_refreshed", calendarId: c.id, message: "the refresh could not run; checked as last stored" }));
  }
}

// The answer kept under the key, read before the refresh so that a replay costs no sync. The write checks again
// under its lock: two requests with one key at once answer once.
async function keptAnswer(ctx: ResourceContext, ownerId: string, idempotency: IdempotencyInput | undefined, body: unknown, now: Date): Promise<StayResult | undefined> {
  if (!idempotency) return undefined;
  const kept = await ctx.store.findIdempotencyRecord({ ownerId, ...idempotency, since: new Date(now.getTime() - IDEMPOTENCY_TTL_MS) });
  if (!kept) return undefined;
  return kept.requestHash === requestHash(body) ? replayedStay(kept.status, kept.body) : keyReused();
}

function writeOf(
  ctx: ResourceContext,
  ownerId: string,
  action: DirectStayWrite["action"],
  at: Date,
  input: { body: unknown; idempotency?: IdempotencyInput },
  warnings: RefreshWarning[],
): DirectStayWrite {
  const created = action.type === "create" ? 201 : 200;
  const idempotency: IdempotencyClaim | undefined = input.idempotency && {
    ...input.idempotency,
    requestHash: requestHash(input.body),
    since: new Date(at.getTime() - IDEMPOTENCY_TTL_MS),
    // Only what a retry must not redo or undo is kept (CONTRACT §14): a stay written (201/200) and nights found
    // taken (409 nights_unavailable). A 404, a 422 or a 409 not_direct changed nothing: a retry answers them afresh.
    answer: (outcome) => (outcome.type === "done" || outcome.type === "conflict" ? stayAnswer(resultOf(outcome, warnings, created)) : undefined),
  };
  return { ownerId, action, at, idempotency, events: (change) => directStayEvents(change, at) };
}

function resultOf(outcome: DirectStayOutcome, warnings: RefreshWarning[], status: 200 | 201): StayResult {
  switch (outcome.type) {
    case "done":
      return { ok: true, status, reservation: outcome.reservation, warnings, replayed: false };
    case "conflict": {
      const nights = outcome.conflicts.map((c) => `${c.source} ${c.arrival}–${c.departure}`).join(", ");
      return failure(409, "nights_unavailable", `the nights are taken: ${nights}`, { conflicts: outcome.conflicts, warnings });
    }
    case "not_found":
      return notFound(status === 201 ? "property" : "reservation");
    case "not_direct":
      return failure(409, "not_direct", `reservation ${outcome.reservation.id} came from ${outcome.reservation.source}: only direct stays can be changed`);
    case "cancelled":
      return failure(422, "invalid_request", "the stay is cancelled: create a new one instead", { field: "status" });
    case "replay":
      return replayedStay(outcome.record.status, outcome.record.body);
    case "key_reused":
      return keyReused();
  }
}

/** SHA-256 of a body's JSON with object keys sorted, so that key order and spacing do not count as another body. */
export function requestHash(body: unknown): string {
  return createHash("sha256").update(canonicalJson(body)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const notFound = (what: "property" | "reservation") => failure(404, "not_found", `no such ${what}`);
const keyReused = () => failure(422, "idempotency_key_reused", "this Idempotency-Key was used with another body in the last 24 hours", { field: "Idempotency-Key" });
const invalid = (problem: InputProblem) => failure(422, "invalid_request", problem.message, { field: problem.name });
