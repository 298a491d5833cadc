// The rules of CONTRACT §9 that are not about one page: security headers, CSRF tokens and the Origin check.
import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Sent with every answer of the server. Scripts and styles come only from calsync's own files (no
 * inline script or style, no CDN), nothing may frame the pages, forms post only here, and other
 * sites learn nothing from the Referer.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
};

/** Adds the security headers to `response` where it has none of its own. */
export function withSecurityHeaders(response: Response): Response {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    if (!response.headers.has(name)) response.headers.set(name, value);
  }
  return response;
}

/**
 * The CSRF token of the forms a browser is shown: an HMAC of a secret only that browser holds (its
 * session cookie, or before sign-in its `calsync_csrf` cookie). A page elsewhere can neither read
 * the cookie nor compute the token.
 */
export function csrfTokenFor(secret: string): string {
  return createHmac("sha256", secret).update("calsync dashboard form").digest("base64url");
}

/** True when `presented` is the CSRF token of `secret` (constant-time). */
export function csrfMatches(secret: string | undefined, presented: string | null): boolean {
  if (!secret || !presented) return false;
  const expected = Buffer.from(csrfTokenFor(secret));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * True unless the request says it comes from another origin. Browsers send `Origin` with every
 * POST; a page on another port of the same host is another origin (cookies alone do not tell,
 * since they ignore ports). Without `Origin`, a `Referer` must be ours when present; a request
 * with neither still needs the CSRF token.
 */
export function sameOrigin(headers: Headers, ownOrigin: string): boolean {
  const origin = headers.get("origin");
  if (origin !== null) return origin.toLowerCase() === ownOrigin && origin !== "null";
  const referer = headers.get("referer");
  if (referer === null) return true;
  try {
    return new URL(referer).origin.toLowerCase() === ownOrigin;
  } catch {
    return false;
  }
}
