// A cookie-keeping client for the dashboard's route tests: what a browser does with forms, cookies and
// redirects, over the real h3 app (app.fetch) or a real server (fetch).
import { expect } from "vitest";

/** Sends one request; `app.fetch` or a wrapper of `fetch`. */
export type Send = (request: Request) => Response | Promise<Response>;

/** A browser-like client of one origin. */
export interface PageClient {
  readonly base: string;
  /** Cookies the server set and has not removed. */
  readonly cookies: Map<string, string>;
  /** `Set-Cookie` lines of the last answer. */
  lastSetCookies: string[];
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /**
   * Posts a url-encoded form. `csrf` defaults to the token of the last page read, `origin` to the
   * client's own; pass null to leave either out.
   */
  post(path: string, fields: Record<string, string>, options?: { csrf?: string | null; origin?: string | null; headers?: Record<string, string> }): Promise<Response>;
  /** GETs `path` and remembers its CSRF token; returns the page's HTML. */
  page(path: string): Promise<string>;
  csrf: string | undefined;
}

/** A client of `base` (e.g. `http://calsync.test`) sending through `send`; `origin` is what its forms send as Origin. */
export function pageClient(send: Send, base: string, options: { origin?: string; headers?: Record<string, string> } = {}): PageClient {
  const ownOrigin = options.origin ?? base;
  const always = options.headers ?? {};
  const cookies = new Map<string, string>();
  const client: PageClient = {
    base,
    cookies,
    lastSetCookies: [],
    csrf: undefined,
    async get(path, headers = {}) {
      return remember(await send(new Request(`${base}${path}`, { headers: { ...always, ...cookieHeader(), ...headers }, redirect: "manual" })));
    },
    async post(path, fields, options = {}) {
      const csrf = options.csrf === undefined ? client.csrf : options.csrf;
      const origin = options.origin === undefined ? ownOrigin : options.origin;
      const body = new URLSearchParams({ ...fields, ...(csrf === null || csrf === undefined ? {} : { csrf }) });
      const headers: Record<string, string> = {
        ...always,
        "content-type": "application/x-www-form-urlencoded",
        ...cookieHeader(),
        ...(origin === null ? {} : { origin }),
        ...options.headers,
      };
      return remember(await send(new Request(`${base}${path}`, { method: "POST", headers, body, redirect: "manual" })));
    },
    async page(path) {
      const response = await client.get(path);
      expect(response.status, `GET ${path}`).toBe(200);
      const html = await response.text();
      client.csrf = csrfOf(html) ?? client.csrf;
      return html;
    },
  };

  function cookieHeader(): Record<string, string> {
    return cookies.size === 0 ? {} : { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") };
  }

  function remember(response: Response): Response {
    client.lastSetCookies = response.headers.getSetCookie();
    for (const line of client.lastSetCookies) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/;\s*Max-Age=0/i.test(line) || value === "") cookies.delete(name);
      else cookies.set(name, value);
    }
    return response;
  }
  return client;
}

/** The CSRF token in a page's forms. */
export function csrfOf(html: string): string | undefined {
  return /name="csrf" value="([^"]+)"/.exec(html)?.[1];
}

/** Signs `client` in through the form and checks it worked. */
export async function signIn(client: PageClient, email: string, password: string): Promise<void> {
  await client.page("/sign-in");
  const response = await client.post("/sign-in", { email, password, next: "/properties" });
  expect(response.status, "sign-in").toBe(303);
  expect(response.headers.get("location")).toBe("/properties");
  await client.page("/properties");
}
