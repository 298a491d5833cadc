// One spelling per feed: two URLs an owner pasted are the same feed when their normal forms are equal.
// For comparing only; the URL that is stored and fetched stays exactly as the owner wrote it.

/** RFC 3986 unreserved characters: percent-encoding them changes nothing. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * The normal form of a feed URL for comparing feeds (CONTRACT §6), or undefined when `raw` is no
 * http(s)/webcal(s) URL. `webcal`/`webcals`/`http` read as `https`; host lower-case without a
 * trailing dot; no default port; no trailing slash; query parameters sorted by name (values of a
 * repeated name keep their order); percent-escapes upper-case, unreserved ones decoded; no fragment.
 */
export function normalizeFeedUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim().replace(/^webcals?:/i, "https:"));
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  // A server that answers the same path differently over http and https does not exist among
  // channels; treating them as one feed only ever stops a calendar being imported twice.
  const port = url.port ? `:${url.port}` : "";
  const host = url.hostname.replace(/\.$/, "");
  const userinfo = url.username || url.password ? `${normalizeEscapes(url.username)}:${normalizeEscapes(url.password)}@` : "";
  const path = normalizeEscapes(url.pathname).replace(/\/+$/, "");
  const query = normalizeQuery(url.search.slice(1));
  return `https://${userinfo}${host}${port}${path}${query ? `?${query}` : ""}`;
}

/** True when `a` and `b` are the same feed once normalised; URLs that cannot be read are never the same. */
export function sameFeedUrl(a: string, b: string): boolean {
  const left = normalizeFeedUrl(a);
  return left !== undefined && left === normalizeFeedUrl(b);
}

function normalizeQuery(query: string): string {
  const pairs = query
    .split("&")
    .filter((pair) => pair !== "")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const name = normalizeEscapes(eq === -1 ? pair : pair.slice(0, eq));
      return { name, pair: eq === -1 ? name : `${name}=${normalizeEscapes(pair.slice(eq + 1))}` };
    });
  // Array.prototype.sort is stable: `?a=1&a=2` and `?a=2&a=1` stay different, as a server may read them so.
  pairs.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  return pairs.map((entry) => entry.pair).join("&");
}

// `%7e` and `~` are one character; `%2f` and `%2F` are one escape (`%2F` stays escaped: it is not a `/`).
function normalizeEscapes(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_escape, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}
