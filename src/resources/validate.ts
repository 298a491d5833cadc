// Reading what a door was given for API v1's resources (CONTRACT §14), the same for the API, the CLI and the
// dashboard: query values → 400 `bad_request` naming the parameter, bodies → 422 `invalid_request` naming the field.
import { multiLineText, oneLineText } from "../engine/control-characters.js";
import { addDays } from "../engine/nights.js";
import { calendarDateFault } from "../engine/strict-date.js";
import type { DirectStayCreate, DirectStayUpdate } from "../resource-types.js";

/** A refusal of one input, naming it. */
export interface InputProblem {
  /** The query parameter (400) or body field (422) at fault. */
  name: string;
  message: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: InputProblem };

/** Most nights an availability answer spans. */
export const MAX_AVAILABILITY_NIGHTS = 732;
/** Most nights one direct stay takes. */
export const MAX_STAY_NIGHTS = 366;
/** Longest summary and note, in characters. */
export const MAX_SUMMARY = 200;
export const MAX_NOTE = 2000;
/** Page sizes of lists. */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Why `value` is not a real `YYYY-MM-DD` date, or null; the message quotes `value` as the client wrote it. */
export function dateProblem(value: string): string | null {
  const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  const match = DATE.exec(value);
  if (!match) return `${shown} is not a date (YYYY-MM-DD)`;
  const fault = calendarDateFault(Number(match[1]), Number(match[2]), Number(match[3]));
  return fault ? `${shown} is not a real date (${fault})` : null;
}

/** Whole nights from `from` to `to` (both real dates). */
export function nightsBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

const fail = <T>(name: string, message: string): Checked<T> => ({ ok: false, problem: { name, message } });

/** The filters of a reservation list. */
export interface ListQuery {
  from?: string;
  to?: string;
  status: "active" | "cancelled" | "all";
  limit: number;
  cursor?: string;
}

/** `from`, `to`, `status`, `limit`, `cursor` of a reservation list (the cursor is read by cursor.ts). */
export function readListQuery(query: Record<string, string | undefined>): Checked<ListQuery> {
  for (const name of ["from", "to"] as const) {
    const value = query[name];
    const problem = value === undefined ? null : dateProblem(value);
    if (problem) return fail(name, `${name}: ${problem}`);
  }
  if (query.from !== undefined && query.to !== undefined && query.to <= query.from) return fail("to", "to must be after from");
  const status = query.status ?? "active";
  if (status !== "active" && status !== "cancelled" && status !== "all") return fail("status", "status must be active, cancelled or all");
  const limit = readLimit(query.limit);
  if (!limit.ok) return limit;
  return { ok: true, value: { from: query.from, to: query.to, status, limit: limit.value, cursor: query.cursor } };
}

/** `limit`: a whole number 1–500, default 100. */
export function readLimit(value: string | undefined): Checked<number> {
  if (value === undefined) return { ok: true, value: DEFAULT_LIMIT };
  const n = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= MAX_LIMIT)) return fail("limit", `limit must be a whole number from 1 to ${MAX_LIMIT}`);
  return { ok: true, value: n };
}

const CREATE_FIELDS = new Set(["kind", "arrival", "departure", "summary", "note", "refresh"]);
const UPDATE_FIELDS = new Set(["arrival", "departure", "summary", "note", "refresh"]);

/** A POST body: fields, types, real dates, nights in order, not past (`today` in the property's zone), at most 366. */
export function readStayCreate(body: unknown, today: string): Checked<Required<Pick<DirectStayCreate, "kind" | "arrival" | "departure">> & { summary: string; note: string | null; refresh: boolean }> {
  const fields = readFields(body, CREATE_FIELDS);
  if (!fields.ok) return fields;
  const b = fields.value;
  if (b.kind !== "booking" && b.kind !== "block") return fail("kind", 'kind must be "booking" or "block"');
  const text = readTexts(b);
  if (!text.ok) return text;
  if (b.refresh !== undefined && typeof b.refresh !== "boolean") return fail("refresh", "refresh must be true or false");
  if (b.arrival === undefined) return fail("arrival", "arrival is required");
  if (b.departure === undefined) return fail("departure", "departure is required");
  const nights = readNights(b.arrival, b.departure, today);
  if (!nights.ok) return nights;
  const summary = text.value.summary ?? (b.kind === "booking" ? "Direct booking" : "Blocked");
  return { ok: true, value: { kind: b.kind, ...nights.value, summary, note: text.value.note ?? null, refresh: b.refresh ?? true } };
}

/** A PATCH body; `current` are the stay's nights now, merged with the new ones before they are checked. */
export function readStayUpdate(body: unknown, current: { arrival: string; departure: string }, today: string): Checked<DirectStayUpdate & { refresh: boolean; nightsChanged: boolean }> {
  const fields = readFields(body, UPDATE_FIELDS);
  if (!fields.ok) return fields;
  const b = fields.value;
  const text = readTexts(b);
  if (!text.ok) return text;
  if (b.refresh !== undefined && typeof b.refresh !== "boolean") return fail("refresh", "refresh must be true or false");
  const update: DirectStayUpdate = { ...text.value };
  let nightsChanged = false;
  if (b.arrival !== undefined || b.departure !== undefined) {
    const nights = readNights(b.arrival ?? current.arrival, b.departure ?? current.departure, today);
    if (!nights.ok) return nights;
    Object.assign(update, nights.value);
    nightsChanged = nights.value.arrival !== current.arrival || nights.value.departure !== current.departure;
  }
  return { ok: true, value: { ...update, refresh: b.refresh ?? true, nightsChanged } };
}

function readFields(body: unknown, known: Set<string>): Checked<Record<string, unknown>> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return fail("body", "the body must be a JSON object");
  for (const name of Object.keys(body)) if (!known.has(name)) return fail(name, `${JSON.stringify(name.slice(0, 40))} is not a field of this request`);
  return { ok: true, value: body as Record<string, unknown> };
}

// Control characters are dropped before the length is checked: what is stored is what counts (a note keeps its lines).
function readTexts(b: Record<string, unknown>): Checked<{ summary?: string; note?: string | null }> {
  const summary = typeof b.summary === "string" ? oneLineText(b.summary) : b.summary;
  const note = typeof b.note === "string" ? multiLineText(b.note) : b.note;
  if (summary !== undefined && (typeof summary !== "string" || summary.length > MAX_SUMMARY)) {
    return fail("summary", `summary must be text of at most ${MAX_SUMMARY} characters`);
  }
  if (note !== undefined && note !== null && (typeof note !== "string" || note.length > MAX_NOTE)) {
    return fail("note", `note must be text of at most ${MAX_NOTE} characters`);
  }
  return { ok: true, value: { ...(summary !== undefined ? { summary } : {}), ...(note !== undefined ? { note: note as string | null } : {}) } };
}

function readNights(arrival: unknown, departure: unknown, today: string): Checked<{ arrival: string; departure: string }> {
  for (const [name, value] of [["arrival", arrival], ["departure", departure]] as const) {
    if (typeof value !== "string") return fail(name, `${name} must be a date (YYYY-MM-DD)`);
    const problem = dateProblem(value);
    if (problem) return fail(name, `${name}: ${problem}`);
  }
  const a = arrival as string;
  const d = departure as string;
  if (d <= a) return fail("departure", "departure must be after arrival");
  if (d <= today) return fail("departure", `the stay is over: departure must be after today (${today})`);
  if (nightsBetween(a, d) > MAX_STAY_NIGHTS) return fail("departure", `a stay takes at most ${MAX_STAY_NIGHTS} nights`);
  return { ok: true, value: { arrival: a, departure: d } };
}
