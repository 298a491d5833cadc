// Strong ETags and the If-None-Match test (RFC 9110 §8.8.3, §13.1.2), for the answers that revalidate.
import { createHash } from "node:crypto";

/** A strong ETag of `body`: 22 characters of its SHA-256, quoted. */
export function strongEtag(body: string | Uint8Array): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
}

/** If-None-Match uses weak comparison (RFC 9110 §13.1.2): `W/"x"` matches `"x"`; `*` matches anything. */
export function matchesEtag(header: string, etag: string): boolean {
  return header.split(",").some((tag) => {
    const value = tag.trim();
    return value === "*" || value.replace(/^W\//, "") === etag;
  });
}
