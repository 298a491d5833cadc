// Prefixed ids (`prp_…`): readable in logs, unguessable, and in creation order.
import { randomFillSync } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// A first sync makes an id per reservation: random characters are drawn a pool at a time (one
// randomBytes call each was a fifth of the write cost) and spelled once per pool, not once per id.
// 4,095 bytes are 1,365 whole base64 groups: every character is uniform over 64 values and independent
// of the others, so dropping "+" and "/" leaves characters uniform over the 62 letters and digits.
const pool = Buffer.alloc(4095);
let spelled = "";
let used = 0;

/** Random base62 string of `length` characters. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    if (used === spelled.length) {
      randomFillSync(pool);
      spelled = pool.toString("base64").replace(/[+/]/g, "");
      used = 0;
    }
    const take = Math.min(length - out.length, spelled.length - used);
    out += spelled.slice(used, used + take);
    used += take;
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
export function newId(prefix: "own" | "tok" | "prp" | "cal" | "rsv" | "run" | "inv" | "ses" | "whk" | "mail" | "msg"): string {
  const now = Date.now();
  // A first sync makes thousands of ids in the same millisecond: spell the time once per millisecond.
  if (now !== lastMs) {
    lastMs = now;
    lastTime = base62Time(now, 8);
  }
  return `${prefix}_${lastTime}${randomBase62(12)}`;
}

let lastMs = -1;
let lastTime = "";
