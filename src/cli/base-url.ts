// `--base-url` / CALSYNC_BASE_URL, read alike by the commands that print links to the server.
import { UsageError } from "./context.js";

/** The server's public address without a trailing slash (a path prefix behind a proxy is kept); `source` names the flag in errors. */
export function feedBaseUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new UsageError(`${source} is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`${source} must be an http:// or https:// address, got ${url.protocol}`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}
