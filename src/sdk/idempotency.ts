// Idempotency-Key values for writes (CONTRACT §14), as openai-node and Stripe do: one per call,
// reused by that call's retries, so a retry after a lost answer is answered, not applied, again.
import { CalsyncError } from "./errors.js";

/** Longest key the server stores (CONTRACT §14). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** A fresh key: `calsync-sdk-` and 128 random bits in hex. */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  // getRandomValues exists in every runtime the SDK supports, even on plain-http pages where randomUUID does not.
  const crypto = (globalThis as { crypto?: { getRandomValues?: (array: Uint8Array) => Uint8Array } }).crypto;
  if (typeof crypto?.getRandomValues === "function") crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return `calsync-sdk-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** The caller's key checked (1–255 printable characters), or a fresh one when none was given. */
export function idempotencyKeyOf(given: string | undefined): string {
  if (given === undefined) return newIdempotencyKey();
  if (given === "" || given.length > MAX_IDEMPOTENCY_KEY_LENGTH || /[^\x20-\x7e]/.test(given)) {
    throw new CalsyncError(
      `calsync: idempotencyKey must be 1–${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters (it is sent as a header)`,
    );
  }
  return given;
}
