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
  // Matrix parameters (`/ical;token=…`) carry secrets like a query does; split on the raw `;`
  // so an encoded `%3B` inside a name stays data, not a delimiter.
  const [name, ...params] = segment.split(";");
  return [maskName(name!), ...params.map(maskParam)].join(";");
}

function maskParam(param: string): string {
  const eq = param.indexOf("=");
  if (eq === -1) return isSecret(safeDecode(param)) ? MASK : param;
  return `${param.slice(0, eq)}=${MASK}`;
}

function maskName(segment: string): string {
  if (segment === "") return segment;
  const decoded = safeDecode(segment);
  // Vrbo and others: `/<token>.ics` — mask the token, keep the extension readable.
  const ext = /^(.*)(\.(?:ics|ical|ifb|vcs))$/i.exec(decoded);
  if (ext && isSecret(ext[1]!)) return `${MASK}${ext[2]}`;
  return isSecret(decoded) ? MASK : segment;
}

/** True for tokens: long mixed letters+digits, long hex, UUIDs, long mixed-case base64url, long digit or single-case letter runs, Google's `private-<hex>`. */
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
  // Long numeric ids (Google/iCloud/Booking-style exports) act as secrets; 14-digit listing ids stay readable.
  if (/^[0-9]{16,}$/.test(value)) return true;
  // Single-case letter runs this long are not words (base32-style tokens); CamelCase words such as
  // `VacationRentalCalendar` are, so mixed case keeps the 24-character rule above.
  if (/^(?:[a-z]{20,}|[A-Z]{20,})$/.test(value)) return true;
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
