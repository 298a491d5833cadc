// Prefixed ids (`prp_…`): readable in logs, unguessable, and in creation order.
import { randomFillSync } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// A first sync makes an id per reservation; one randomBytes call each was a fifth of the write cost.
const pool = Buffer.alloc(4096);
let used = pool.length;

/** Random base62 string of `length` characters. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    if (used === pool.length) {
      randomFillSync(pool);
      used = 0;
    }
    const byte = pool[used++]!;
    // 248 = 4 × 62: rejecting larger bytes keeps every character equally likely.
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

/** `ms` in base62, `width` characters; the alphabet is in ASCII order, so these sort as the numbers do. */
function base62Time(ms: number, width: number): string {
  let out = "";
  for (let rest = Math.floor(ms); out.length < width; rest = Math.floor(rest / 62)) out = ALPHABET[rest % 62] + out;
  return out;
}

/**
 * A new id such as `rsv_0Xk3vQ9a4fQ9…`: 8 characters of creation time (milliseconds, good until
 * year 8888), then 12 random ones (71 bits). Time first, because ids are primary keys: a random key
 * lands every insert on a different B-tree page, which measured three times the write cost of a sync.
 */
export function newId(prefix: "own" | "tok" | "prp" | "cal" | "rsv" | "run" | "inv" | "ses" | "whk" | "msg"): string {
  return `${prefix}_${base62Time(Date.now(), 8)}${randomBase62(12)}`;
}
