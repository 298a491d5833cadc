// API tokens (CONTRACT §3): `cs_` + 32 base62 characters; only a SHA-256 hash is ever stored.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Store, TokenRecord } from "../store/types.js";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const TOKEN_PATTERN = /^cs_[0-9A-Za-z]{32}$/;
/** How much of a token is kept in clear for people to recognise it. */
const PREFIX_LENGTH = 7;

/** A fresh token with the values the store keeps of it. */
export interface GeneratedToken {
  token: string;
  prefix: string;
  hash: string;
}

/** Creates a token with ≥ 190 bits of randomness (32 × log2 62). */
export function generateToken(): GeneratedToken {
  let body = "";
  while (body.length < 32) {
    for (const byte of randomBytes(48)) {
      // 248 = 4 × 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && body.length < 32) body += ALPHABET[byte % 62];
    }
  }
  const token = `cs_${body}`;
  return { token, prefix: token.slice(0, PREFIX_LENGTH), hash: hashToken(token) };
}

/** SHA-256 of a token, hex. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** True when the string has the shape of a calsync token. */
export function isWellFormedToken(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

export type TokenCheck =
  | { ok: true; token: TokenRecord }
  | { ok: false; code: "missing_token" | "invalid_token" | "expired_token" | "revoked_token" };

/** Resolves an `x-api-key` value to its token record, or the 401 reason. */
export async function checkToken(store: Store, presented: string | null | undefined, now = new Date()): Promise<TokenCheck> {
  if (!presented) return { ok: false, code: "missing_token" };
  // Hash first either way, so malformed, unknown and wrong tokens take the same path.
  const hash = hashToken(presented);
  const record = isWellFormedToken(presented) ? await store.findTokenByHash(hash) : undefined;
  if (!record || !timingSafeEqual(Buffer.from(record.hash, "hex"), Buffer.from(hash, "hex"))) {
    return { ok: false, code: "invalid_token" };
  }
  if (record.revokedAt) return { ok: false, code: "revoked_token" };
  if (record.expiresAt && Date.parse(record.expiresAt) <= now.getTime()) return { ok: false, code: "expired_token" };
  return { ok: true, token: record };
}
