// Prefixed random ids (`prp_…`): readable in logs, unguessable, sortable by nothing on purpose.
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Random base62 string of `length` characters. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 × 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** A new id such as `cal_4fQ9…`. */
export function newId(prefix: "own" | "tok" | "prp" | "cal" | "rsv" | "run"): string {
  return `${prefix}_${randomBase62(16)}`;
}
