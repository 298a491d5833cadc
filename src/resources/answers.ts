// What the resource functions answer: values with the contract's status and code (errors are values), and
// the wire body each door sends or prints. An idempotent replay turns a kept body back into the same value.
import type { NightsConflict, RefreshWarning, Reservation } from "../resource-types.js";
import type { ApiErrorCode } from "../types.js";

/** A refusal with its HTTP status and `error.code` (CONTRACT §2, §14). */
export interface ResourceFailure {
  ok: false;
  status: 400 | 404 | 409 | 413 | 422;
  code: ApiErrorCode;
  message: string;
  /** The query parameter (400) or body field (422) at fault. */
  field?: string;
  /** `nights_unavailable`: the stays holding the nights asked for. */
  conflicts?: NightsConflict[];
  /** Channel calendars checked as last stored (CONTRACT §14). */
  warnings?: RefreshWarning[];
}

/** A value, or the refusal. */
export type ResourceResult<T> = { ok: true; value: T } | ResourceFailure;

/** A direct stay written (201 created, 200 updated or cancelled), or the refusal. */
export type StayResult =
  | { ok: true; status: 200 | 201; reservation: Reservation; warnings: RefreshWarning[]; /** The answer kept under the Idempotency-Key. */ replayed: boolean }
  | ResourceFailure;

/** A refusal; `field` names the parameter or field at fault. */
export function failure(status: ResourceFailure["status"], code: ApiErrorCode, message: string, extra: Partial<ResourceFailure> = {}): ResourceFailure {
  return { ok: false, status, code, message, ...extra };
}

/** The JSON body of a failure: the error body of CONTRACT §2, plus `conflicts` and `warnings` when present. */
export function failureBody(f: ResourceFailure): Record<string, unknown> {
  return {
    ok: false,
    error: { code: f.code, message: f.message, ...(f.field ? { field: f.field } : {}) },
    ...(f.conflicts ? { conflicts: f.conflicts } : {}),
    ...(f.warnings && f.warnings.length > 0 ? { warnings: f.warnings } : {}),
  };
}

/** The status and JSON body of a direct-stay answer: the Reservation, with `warnings` only when not empty. */
export function stayAnswer(result: StayResult): { status: number; body: unknown } {
  if (!result.ok) return { status: result.status, body: failureBody(result) };
  return { status: result.status, body: { ...result.reservation, ...(result.warnings.length > 0 ? { warnings: result.warnings } : {}) } };
}

/** A kept answer read back as the value it was made from. */
export function replayedStay(status: number, body: unknown): StayResult {
  const b = body as Record<string, unknown>;
  if (status < 300) {
    const { warnings, ...reservation } = b as unknown as Reservation & { warnings?: RefreshWarning[] };
    return { ok: true, status: status as 200 | 201, reservation, warnings: warnings ?? [], replayed: true };
  }
  const error = b.error as { code: ApiErrorCode; message: string; field?: string };
  return failure(status as ResourceFailure["status"], error.code, error.message, {
    ...(error.field ? { field: error.field } : {}),
    ...(b.conflicts ? { conflicts: b.conflicts as NightsConflict[] } : {}),
    ...(b.warnings ? { warnings: b.warnings as RefreshWarning[] } : {}),
  });
}
