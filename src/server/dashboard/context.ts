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
import { clearSessionCookie, clearSessionCookiesAlong, endPresentedSessions, presentedSession, resumeSession, type OpenSession } from "./sessions.js";

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
  /** A channel link not read for longer than this is `stale` (CONTRACT §17). @default 24 h */
  channelStaleAfterMs?: number;
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
    if (!isVisit(visit)) {
      const next = `${event.url.pathname}${event.url.search}`;
      return signedOut(ctx, event, facts, visit, `/sign-in?next=${encodeURIComponent(next)}`);
    }
    const { flash, cookies: flashCookies } = takeFlash(facts);
    if (flash) visit.flash = flash;
    const response = await handler(event, visit);
    return withCookies(response, [...visit.open.cookies, ...flashCookies]);
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
    if (!isVisit(visit)) return signedOut(ctx, event, facts, visit, "/sign-in");
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
  return redirect(location, [flashCookie(flash, visit.facts.https)]);
}

/** The flash this request carries (shown once), and the cookie that removes it. */
export function takeFlash(facts: RequestFacts): { flash?: Flash; cookies: string[] } {
  if (!facts.cookies[FLASH_COOKIE]) return { cookies: [] };
  const flash = readFlash(facts.cookies[FLASH_COOKIE]);
  return { ...(flash ? { flash } : {}), cookies: [cookie(FLASH_COOKIE, "", { secure: facts.https, maxAgeSeconds: 0 })] };
}

/** What a request two session cookies were sent with is told on the sign-in page. */
export const TWO_SESSIONS_FLASH: Flash = {
  tone: "warn",
  text:
    "You were signed out: this browser sent two sign-in cookies, so calsync could not tell which account is yours. " +
    "Another site on this host (another port or subdomain) may have set one. Sign in again.",
};

/**
 * When `facts` presents two session cookies: ends both sessions (so neither can be used again) and
 * answers the `Set-Cookie` values removing them; otherwise changes nothing and answers none.
 */
export async function forgetTwoSessions(ctx: DashboardContext, pathname: string, facts: RequestFacts): Promise<string[]> {
  const { ambiguous } = presentedSession(facts);
  if (ambiguous.length === 0) return [];
  await endPresentedSessions(ctx.store, ambiguous);
  return clearSessionCookiesAlong(pathname, facts.https);
}

type NoVisit = "signed-out" | "two-sessions";

function isVisit(visit: Visit | NoVisit): visit is Visit {
  return typeof visit !== "string";
}

async function visitOf(ctx: DashboardContext, event: H3Event, facts: RequestFacts): Promise<Visit | NoVisit> {
  const presented = presentedSession(facts);
  if (presented.ambiguous.length > 0) return "two-sessions";
  const open = await resumeSession(ctx.store, presented.secret, ctx.now(), facts.https);
  if (!open) return "signed-out";
  const owner = await ctx.store.getOwner(open.session.ownerId);
  if (!owner) return "signed-out";
  return { owner, open, facts, ownerName: owner.name, path: event.url.pathname, csrf: csrfTokenFor(open.secret) };
}

// Sent to sign in: a stale cookie is removed; two cookies end both sessions and the sign-in page says why.
async function signedOut(ctx: DashboardContext, event: H3Event, facts: RequestFacts, why: NoVisit, location: string): Promise<Response> {
  if (why === "two-sessions") {
    const cleared = await forgetTwoSessions(ctx, event.url.pathname, facts);
    return redirect(location, [...cleared, flashCookie(TWO_SESSIONS_FLASH, facts.https)]);
  }
  return redirect(location, presentedSession(facts).secret ? [clearSessionCookie(facts.https)] : []);
}

function flashCookie(flash: Flash, secure: boolean): string {
  return cookie(FLASH_COOKIE, Buffer.from(JSON.stringify(flash)).toString("base64url"), { secure, maxAgeSeconds: 60 });
}

// A flash is only ever text shown back to the same browser, escaped like any other text.
function readFlash(value: string | undefined): Flash | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as Partial<Flash>;
    const tone = parsed.tone === "ok" || parsed.tone === "warn" || parsed.tone === "error" ? parsed.tone : undefined;
    if (!tone || typeof parsed.text !== "string") return undefined;
    const at = typeof parsed.at === "string" && /^[a-z][a-z0-9-]{0,40}$/.test(parsed.at) ? { at: parsed.at } : {};
    return { tone, text: parsed.text.slice(0, 1000), ...at };
  } catch {
    return undefined;
  }
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
