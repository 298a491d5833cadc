// Passwords as a slow salted hash (CONTRACT §9): node:crypto scrypt, N = 2^15, r = 8, p = 3 — one of
// OWASP's equivalent scrypt settings, 32 MiB per hash instead of the 128 MiB of N = 2^17, p = 1, so a
// burst of sign-ins cannot exhaust a small server's memory. About 0.3 s per hash on a shared 2-CPU VM.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/** Shortest password accepted. */
export const MIN_PASSWORD_LENGTH = 10;
/** Longest password accepted (hashing is cheap either way; this only bounds the form). */
export const MAX_PASSWORD_LENGTH = 1024;

const LOG2_N = 15;
const R = 8;
const P = 3;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

/** Why a chosen password is refused, or undefined when it is fine. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`;
  return undefined;
}

/** `scrypt$<log2 N>$<r>$<p>$<salt>$<key>` (base64url): the parameters travel with the hash, so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, LOG2_N, R, P);
  return ["scrypt", LOG2_N, R, P, salt.toString("base64url"), key.toString("base64url")].join("$");
}

// Verifying against this when an email is unknown takes as long as a real check, so timing does not
// tell which emails have accounts.
const DUMMY = `scrypt$${LOG2_N}$${R}$${P}$${Buffer.alloc(SALT_BYTES).toString("base64url")}$${Buffer.alloc(KEY_BYTES).toString("base64url")}`;

/** True when `password` matches `stored`; a missing or malformed hash is checked against a dummy and fails. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parsed = parse(stored ?? DUMMY) ?? parse(DUMMY)!;
  const key = await derive(password.slice(0, MAX_PASSWORD_LENGTH), parsed.salt, parsed.log2N, parsed.r, parsed.p);
  // Compare in constant time, and count the dummy as a failure even if it matched.
  return timingSafeEqual(key, parsed.key) && stored !== null && stored !== undefined && parse(stored) !== undefined;
}

function parse(stored: string): { log2N: number; r: number; p: number; salt: Buffer; key: Buffer } | undefined {
  const [scheme, log2N, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !key) return undefined;
  const numbers = [Number(log2N), Number(r), Number(p)];
  if (!numbers.every((n) => Number.isInteger(n) && n > 0 && n < 64)) return undefined;
  const decoded = Buffer.from(key, "base64url");
  if (decoded.length !== KEY_BYTES) return undefined;
  return { log2N: numbers[0]!, r: numbers[1]!, p: numbers[2]!, salt: Buffer.from(salt, "base64url"), key: decoded };
}

function derive(password: string, salt: Buffer, log2N: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** log2N;
  // Node's default memory cap (32 MiB) is exactly 128·N·r at N = 2^15, r = 8; leave headroom.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}
