// Reading a property's settings as every door receives them (CONTRACT §8, §18): the PATCH body, the CLI's
// flags and the dashboard's form all pass through `readPropertyChanges`, so each refuses the same input alike.
import { canonicalTimeZone } from "../engine/time-zones.js";
import { propertyNameProblem } from "../store/property-name.js";
import type { PropertyChanges } from "../store/types.js";
import type { Checked } from "./validate.js";

/** Most nights kept free around a booking, and most cleaner addresses per property. */
export const MAX_BUFFER_NIGHTS = 7;
export const MAX_CLEANER_EMAILS = 5;
export const DEFAULT_CHECK_IN_TIME = "15:00";
export const DEFAULT_CHECK_OUT_TIME = "11:00";

const FIELDS = new Set(["name", "timeZone", "checkInTime", "checkOutTime", "bufferNights", "cleanerEmails"]);
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
// One bare mailbox: one `@`, a dot in the domain, nothing that would make a list or a display name of it.
const MAILBOX = /^[^\s@,;<>()"':\\[\]]+@[^\s@.,;<>()"':\\[\]]+(?:\.[^\s@.,;<>()"':\\[\]]+)+$/;

const fail = <T>(name: string, message: string): Checked<T> => ({ ok: false, problem: { name, message } });

/** Why `value` is not a time `HH:MM` (24 h), or null. */
export function timeProblem(value: unknown): string | null {
  return typeof value === "string" && TIME.test(value) ? null : "must be a time HH:MM (24 h), e.g. 15:00";
}

/** Reads a property update: a JSON object of the fields above (at least one), each checked; names the field at fault. */
export function readPropertyChanges(body: unknown): Checked<PropertyChanges> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return fail("body", "the body must be a JSON object");
  const b = body as Record<string, unknown>;
  for (const name of Object.keys(b)) if (!FIELDS.has(name)) return fail(name, `${JSON.stringify(name.slice(0, 40))} is not a field of this request`);
  if (Object.keys(b).length === 0) return fail("body", `nothing to change: give one of ${[...FIELDS].join(", ")}`);
  const changes: PropertyChanges = {};
  if (b.name !== undefined) {
    const name = typeof b.name === "string" ? b.name.trim() : "";
    const problem = typeof b.name === "string" ? propertyNameProblem(name) : "name must be text";
    if (problem) return fail("name", problem);
    changes.name = name;
  }
  if (b.timeZone !== undefined) {
    if (b.timeZone === null) changes.timeZone = null;
    else {
      const zone = typeof b.timeZone === "string" ? canonicalTimeZone(b.timeZone) : null;
      if (zone === null) return fail("timeZone", "timeZone must be an IANA time zone such as Europe/Lisbon, or null");
      changes.timeZone = zone;
    }
  }
  for (const field of ["checkInTime", "checkOutTime"] as const) {
    if (b[field] === undefined) continue;
    const problem = timeProblem(b[field]);
    if (problem) return fail(field, `${field} ${problem}`);
    changes[field] = b[field] as string;
  }
  if (b.bufferNights !== undefined) {
    const n = b.bufferNights;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > MAX_BUFFER_NIGHTS) {
      return fail("bufferNights", `bufferNights must be a whole number from 0 to ${MAX_BUFFER_NIGHTS}`);
    }
    changes.bufferNights = n;
  }
  if (b.cleanerEmails !== undefined) {
    const emails = readCleanerEmails(b.cleanerEmails);
    if (!emails.ok) return emails;
    changes.cleanerEmails = emails.value;
  }
  return { ok: true, value: changes };
}

/** At most 5 bare addresses, trimmed and lower-cased, duplicates once. */
export function readCleanerEmails(value: unknown): Checked<string[]> {
  if (!Array.isArray(value)) return fail("cleanerEmails", "cleanerEmails must be a list of email addresses");
  const emails: string[] = [];
  for (const item of value) {
    const email = typeof item === "string" ? item.trim().toLowerCase() : "";
    if (email.length > 254 || !MAILBOX.test(email)) {
      return fail("cleanerEmails", `cleanerEmails: ${JSON.stringify(String(item).slice(0, 60))} is not one email address such as ann@example.com`);
    }
    if (!emails.includes(email)) emails.push(email);
  }
  if (emails.length > MAX_CLEANER_EMAILS) return fail("cleanerEmails", `cleanerEmails may list at most ${MAX_CLEANER_EMAILS} addresses`);
  return { ok: true, value: emails };
}
