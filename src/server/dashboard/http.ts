// The dashboard's HTTP plumbing: what a request says about itself (origin, HTTPS, client address,
// cookies), form bodies, and the HTML, redirect and cookie answers every page uses.
import { getRequestIP, type H3Event } from "h3";
import type { SafeHtml } from "./html.js";

/** Facts of one request as the dashboard trusts them. */
export interface RequestFacts {
  /** `https://host[:port]` or `http://…` as the browser sees this server. */
  origin: string;
  /** True under HTTPS, directly or (with trust-proxy) as `X-Forwarded-Proto` says. */
  https: boolean;
  /** The client's address: the socket's, or with trust-proxy the one the proxy appended last. */
  clientAddress: string;
  /** The first value of each cookie. */
  cookies: Record<string, string>;
  /** Every value of each cookie, in the order sent: a name sent twice (paths differ) has two. */
  cookieValues: Record<string, string[]>;
}

/** Reads the request; `trustProxy` lets `X-Forwarded-Proto`, `-Host` and `-For` of one proxy in front count. */
export function requestFacts(event: H3Event, trustProxy: boolean): RequestFacts {
  const headers = event.req.headers;
  const forwarded = (name: string) => (trustProxy ? lastListItem(headers.get(name)) : undefined);
  const https = (forwarded("x-forwarded-proto") ?? event.url.protocol.replace(/:$/, "")).toLowerCase() === "https";
  const host = forwarded("x-forwarded-host") ?? headers.get("host") ?? event.url.host;
  return {
    origin: originOf(`${https ? "https" : "http"}://${host}`),
    https,
    clientAddress: forwarded("x-forwarded-for") ?? getRequestIP(event) ?? "unknown",
    ...parseCookies(headers.get("cookie")),
  };
}

// The origin as a browser writes it (lower case, default port left out); a bad Host matches no Origin.
function originOf(value: string): string {
  try {
    return new URL(value).origin;
  } catch {
    return "invalid:";
  }
}

// A proxy appends to these lists; the last item is the one our own proxy wrote, the rest the client could forge.
function lastListItem(value: string | null): string | undefined {
  const item = value?.split(",").at(-1)?.trim();
  return item ? item : undefined;
}

function parseCookies(header: string | null): { cookies: Record<string, string>; cookieValues: Record<string, string[]> } {
  // No prototype: a cookie named __proto__ is just a cookie.
  const cookies = Object.create(null) as Record<string, string>;
  const cookieValues = Object.create(null) as Record<string, string[]>;
  for (const pair of (header ?? "").split(";")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) continue;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (!(name in cookieValues)) {
      cookies[name] = value;
      cookieValues[name] = [];
    }
    cookieValues[name]!.push(value);
  }
  return { cookies, cookieValues };
}

/** A `Set-Cookie` value: always HttpOnly and SameSite=Lax, Path=/ unless told, Secure under HTTPS; `maxAge` 0 deletes it. */
export function cookie(name: string, value: string, options: { secure: boolean; maxAgeSeconds?: number; path?: string }): string {
  const parts = [`${name}=${value}`, `Path=${options.path ?? "/"}`, "HttpOnly", "SameSite=Lax"];
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}

/** Largest form body read; the dashboard's forms are a few hundred bytes. */
const MAX_FORM_BYTES = 64 * 1024;

/** The url-encoded form of a POST, or undefined when it is not one or is too large. */
export async function readForm(event: H3Event): Promise<URLSearchParams | undefined> {
  const type = event.req.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) return undefined;
  if (Number(event.req.headers.get("content-length") ?? 0) > MAX_FORM_BYTES) return undefined;
  const text = await readLimited(event.req.body, MAX_FORM_BYTES);
  return text === undefined ? undefined : new URLSearchParams(text);
}

// A chunked body has no length to check first: stop reading at the limit instead of buffering it all.
async function readLimited(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string | undefined> {
  if (!body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Status texts of the answers pages give. */
const REASONS: Record<number, string> = {
  200: "OK",
  303: "See Other",
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  413: "Content Too Large",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
};

/** An HTML page; never cached, since it shows one owner's data. */
export function htmlResponse(status: number, body: SafeHtml, options: { cookies?: string[]; headers?: Record<string, string> } = {}): Response {
  const headers = new Headers({ "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...options.headers });
  for (const value of options.cookies ?? []) headers.append("set-cookie", value);
  return new Response(`<!doctype html>\n${body.value}`, { status, statusText: REASONS[status] ?? "", headers });
}

/** 303 See Other to a path of this server: the "redirect" of post/redirect/get. */
export function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location: safeLocalPath(location), "cache-control": "no-store" });
  for (const value of cookies) headers.append("set-cookie", value);
  return new Response(null, { status: 303, statusText: REASONS[303], headers });
}

/** `path` when it is a path on this server (`/…`, not `//…` or `/\…`), else `/`: `?next=` must not lead elsewhere. */
export function safeLocalPath(path: string | null | undefined): string {
  return path && /^\/(?![/\\])[^\s]*$/.test(path) ? path : "/";
}
