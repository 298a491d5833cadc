// What every dashboard route shares: its options, and the wrappers that make a handler a signed-in
// page or a form action (session, Origin check, CSRF token), so no route can forget one.
import type { H3Event } from "h3";
import type { Owner, Store } from "../../store/types.js";
import type { DashboardMail } from "../mail/links.js";
import type { SyncRunner } from "../single-flight.js";
import { cookie, readForm, redirect, requestFacts, type RequestFacts } from "./http.js";
import type { Flash, LayoutVisit } from "./layout.js";
import { errorPage } from "./pages/errors.js";
import { csrfMatches, csrfTokenFor, sameOrigin } from "./security.js";
import { clearSessionCookie, resumeSession, SESSION_COOKIE, type OpenSession } from "./sessions.js";

/** Options of the dashboard, resolved by `createApp`. */
export interface DashboardContext {
  store: Store;
  /** The single-flight runner the API uses, so Sync now joins a running sync of the owner. */
  runner: SyncRunner;
  now: () => Date;
  /** Believe `X-Forwarded-Proto`, `-Host` and `-For` from one proxy in front. */
  trustProxy: boolean;
  /** Let feed URLs reach loopback and private addresses (the calendar preview). */
  allowPrivateNetworks: boolean;
  /** Deadline of one feed fetch, in milliseconds (the calendar preview). */
  feedTimeoutMs?: number;
  /** Mail to owners (CONTRACT §16), when `serve --smtp-url` is given; without it "Forgot password?" says whom to ask. */
  mail?: DashboardMail;
}

/** A signed-in request. */
export interface Visit extends LayoutVisit {
  owner: Owner;
  open: OpenSession;
  facts: RequestFacts;
}

type Handler<A extends unknown[]> = (event: H3Event, ...args: A) => Promise<Response>;

/** Cookie of the one-time message shown after a redirect. */
const FLASH_COOKIE = "calsync_flash";
/** Cookie holding the secret of the CSRF token before sign-in. */
export const ANONYMOUS_COOKIE = "calsync_csrf";

/** A GET page for signed-in owners; anyone else is sent to sign in and brought back. */
export function ownerPage(ctx: DashboardContext, handler: Handler<[Visit]>): (event: H3Event) => Promise<Response> {
  return async (event) => {
    const facts = requestFacts(event, ctx.trustProxy);
    const visit = await visitOf(ctx, event, facts);
    if (!visit) {
      const next = `${event.url.pathname}${event.url.search}`;
      return redirect(`/sign-in?next=${encodeURIComponent(next)}`, staleSessionCookie(facts));
    }
    const flash = readFlash(facts.cookies[FLASH_COOKIE]);
    if (flash) visit.flash = flash;
    const response = await handler(event, visit);
    const cookies = [...visit.open.cookies, ...(facts.cookies[FLASH_COOKIE] ? [cookie(FLASH_COOKIE, "", { secure: facts.https, maxAgeSeconds: 0 })] : [])];
    return withCookies(response, cookies);
  };
}

/** A form POST of a signed-in owner: same origin, a valid session and its CSRF token, or refused. */
export function ownerAction(ctx: DashboardContext, handler: Handler<[Visit, URLSearchParams]>): (event: H3Event) => Promise<Response> {
  return async (event) => {
    const facts = requestFacts(event, ctx.trustProxy);
    if (!sameOrigin(event.req.headers, facts.origin)) return refused();
    const form = await readForm(event);
    if (!form) return errorPage(400, "Bad request", "This address takes a form from the dashboard.");
    const visit = await visitOf(ctx, event, facts);
    if (!visit) return redirect("/sign-in", staleSessionCookie(facts));
    if (!csrfMatches(visit.open.secret, form.get("csrf"))) return refused();
    return withCookies(await handler(event, visit, form), visit.open.cookies);
  };
}

/** A form POST before sign-in (sign-in, invite): same origin and the CSRF token of the browser's anonymous cookie. */
export function publicAction(ctx: DashboardContext, handler: Handler<[RequestFacts, URLSearchParams]>): (event: H3Event) => Promise<Response> {
  return async (event) => {
    const facts = requestFacts(event, ctx.trustProxy);
    if (!sameOrigin(event.req.headers, facts.origin)) return refused();
    const form = await readForm(event);
    if (!form) return errorPage(400, "Bad request", "This address takes a form from the dashboard.");
    if (!csrfMatches(facts.cookies[ANONYMOUS_COOKIE], form.get("csrf"))) return refused();
    return handler(event, facts, form);
  };
}

/** The CSRF token for a signed-out form, and the cookie to set when the browser has no secret yet. */
export function anonymousCsrf(facts: RequestFacts, newSecret: () => string): { csrf: string; cookies: string[] } {
  const existing = facts.cookies[ANONYMOUS_COOKIE];
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return { csrf: csrfTokenFor(existing), cookies: [] };
  const secret = newSecret();
  return { csrf: csrfTokenFor(secret), cookies: [cookie(ANONYMOUS_COOKIE, secret, { secure: facts.https })] };
}

/** A 303 to `location` that shows `flash` there once. */
export function redirectWithFlash(visit: { facts: RequestFacts }, location: string, flash: Flash): Response {
  const value = Buffer.from(JSON.stringify(flash)).toString("base64url");
  return redirect(location, [cookie(FLASH_COOKIE, value, { secure: visit.facts.https, maxAgeSeconds: 60 })]);
}

async function visitOf(ctx: DashboardContext, event: H3Event, facts: RequestFacts): Promise<Visit | undefined> {
  const open = await resumeSession(ctx.store, facts.cookies[SESSION_COOKIE], ctx.now(), facts.https);
  if (!open) return undefined;
  const owner = await ctx.store.getOwner(open.session.ownerId);
  if (!owner) return undefined;
  return { owner, open, facts, ownerName: owner.name, path: event.url.pathname, csrf: csrfTokenFor(open.secret) };
}

// A flash is only ever text shown back to the same browser, escaped like any other text.
function readFlash(value: string | undefined): Flash | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as Partial<Flash>;
    const tone = parsed.tone === "ok" || parsed.tone === "warn" || parsed.tone === "error" ? parsed.tone : undefined;
    return tone && typeof parsed.text === "string" ? { tone, text: parsed.text.slice(0, 1000) } : undefined;
  } catch {
    return undefined;
  }
}

function staleSessionCookie(facts: RequestFacts): string[] {
  return facts.cookies[SESSION_COOKIE] ? [clearSessionCookie(facts.https)] : [];
}

function refused(): Response {
  return errorPage(
    403,
    "Form refused",
    "This form came from another site, or the page it was on is too old. Go back, reload the page and try again.",
  );
}

function withCookies(response: Response, cookies: string[]): Response {
  for (const value of cookies) response.headers.append("set-cookie", value);
  return response;
}
