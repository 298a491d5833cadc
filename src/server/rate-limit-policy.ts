// The rate-limit policy as a value and as `--rate-limit` writes it: no limiter library, so `calsync serve`'s
// flag checks stay light.

/** How many sync requests one token may make per window. */
export interface RateLimitPolicy {
  /** Requests allowed per window (at least 1). */
  limit: number;
  /** Length of the window in seconds; it starts with the token's first request. */
  windowSeconds: number;
}

/** The default of `calsync serve` and `createApp`: 6 sync requests a minute per token. */
export const DEFAULT_RATE_LIMIT: RateLimitPolicy = { limit: 6, windowSeconds: 60 };

/** The default budget of the resource routes (CONTRACT §14): 120 requests a minute per token, apart from sync's. */
export const DEFAULT_API_RATE_LIMIT: RateLimitPolicy = { limit: 120, windowSeconds: 60 };

/** Reads `N/s`, `N/m` or `N/h` (`0` or `0/m`: no limit): the policy, `null` for none, or why the text is wrong. */
export function parseRateLimit(text: string): { ok: true; policy: RateLimitPolicy | null } | { ok: false; message: string } {
  const value = text.trim();
  if (value === "0") return { ok: true, policy: null };
  const match = /^(\d+)\/([smh])$/i.exec(value);
  const limit = Number(match?.[1]);
  if (!match || !Number.isSafeInteger(limit)) {
    return { ok: false, message: `invalid rate limit "${text}": use requests per second, minute or hour, e.g. 6/m, 2/s, 100/h, or 0 for none` };
  }
  const windowSeconds = { s: 1, m: 60, h: 3600 }[match[2]!.toLowerCase() as "s" | "m" | "h"];
  return { ok: true, policy: limit === 0 ? null : { limit, windowSeconds } };
}
