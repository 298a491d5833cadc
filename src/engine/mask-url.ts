// Feed URLs carry their access secret in the query or the path; listings, logs and errors show them masked.

const MASK = "***";

/** Returns `url` with userinfo, every query value and secret-looking path segments replaced by `***`. */
export function maskUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return "<invalid url>";
  }
  try {
    const userinfo = parsed.username || parsed.password ? `${MASK}@` : "";
    // Opaque URLs (mailto:, data:) have no host/path shape worth keeping.
    if (!parsed.host && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url.trim())) return `${parsed.protocol}${MASK}`;
    const path = parsed.pathname.split("/").map(maskSegment).join("/");
    const query = parsed.search ? `?${maskQuery(parsed.search.slice(1))}` : "";
    const hash = parsed.hash ? `#${MASK}` : "";
    return `${parsed.protocol}//${userinfo}${parsed.host}${path}${query}${hash}`;
  } catch {
    return "<invalid url>";
  }
}

function maskQuery(query: string): string {
  return query
    .split("&")
    .map((pair) => {
      if (pair === "") return pair;
      const eq = pair.indexOf("=");
      // A bare item (`?nonTentative`) is a flag unless it looks like a token itself.
      if (eq === -1) return isSecret(safeDecode(pair)) ? MASK : pair;
      return `${pair.slice(0, eq)}=${MASK}`;
    })
    .join("&");
}

function maskSegment(segment: string): string {
  if (segment === "") return segment;
  const decoded = safeDecode(segment);
  // Vrbo and others: `/<token>.ics` — mask the token, keep the extension readable.
  const ext = /^(.*)(\.(?:ics|ical|ifb|vcs))$/i.exec(decoded);
  if (ext && isSecret(ext[1]!)) return `${MASK}${ext[2]}`;
  return isSecret(decoded) ? MASK : segment;
}

/** True for tokens: long mixed letters+digits, long hex, UUIDs, long mixed-case base64url, Google's `private-<hex>`. */
function isSecret(value: string): boolean {
  if (/^private-[0-9a-f]{8,}$/i.test(value)) return true;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) return true;
  if (/^[0-9a-f]{16,}$/i.test(value) && /[a-f]/i.test(value)) return true;
  // Random tokens (base64url and friends): long, and mixing letters with digits.
  if (value.length >= 16 && /^[A-Za-z0-9_\-.~=+%]+$/.test(value) && /[A-Za-z]/.test(value) && /[0-9]/.test(value)) {
    return true;
  }
  // A long base64url token can lack digits by chance (~2 % at 24 characters); mixed case still gives it away.
  if (value.length >= 24 && /^[A-Za-z0-9_-]+$/.test(value) && /[a-z]/.test(value) && /[A-Z]/.test(value)) return true;
  // Google's secret calendar id (`<hex>@group.calendar.google.com` is public; a long mixed local part is not).
  const at = value.indexOf("@");
  if (at > 0 && isSecret(value.slice(0, at))) return true;
  return false;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
