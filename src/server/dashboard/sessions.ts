// Server-side sessions (CONTRACT §9): the cookie holds a random secret, the store its SHA-256 hash.
// A session ends on sign-out, on a password change, or after 30 days without a visit.
import type { SessionRecord, Store } from "../../store/types.js";
import { hashSecret, newSecret } from "../accounts.js";
import { cookie, type RequestFacts } from "./http.js";

/** Cookie of a signed-in browser over plain HTTP. */
export const SESSION_COOKIE = "calsync_session";
/**
 * The same under HTTPS: a `__Host-` cookie is Secure, Path=/ and bound to this host by the browser, so
 * a sibling subdomain cannot plant one.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
/** A session nobody used for this long is over. */
export const SESSION_IDLE_MS = 30 * 24 * 60 * 60 * 1000;
// Recording every page view would be a write per request; an hour's precision is plenty for 30 days.
const TOUCH_AFTER_MS = 60 * 60 * 1000;

/** A live session and the cookie secret that opened it. */
export interface OpenSession {
  session: SessionRecord;
  secret: string;
  /** `Set-Cookie` values to send with the answer (a new or refreshed session cookie). */
  cookies: string[];
}

/** Signs `ownerId` in: a new session and its cookie. Idle sessions of anyone are cleared on the way. */
export async function startSession(store: Store, ownerId: string, now: Date, secure: boolean): Promise<OpenSession> {
  await store.deleteIdleSessions(new Date(now.getTime() - SESSION_IDLE_MS));
  const secret = newSecret();
  const session = await store.createSession({ ownerId, hash: hashSecret(secret), at: now });
  return { session, secret, cookies: [sessionCookie(secret, secure)] };
}

/** The session of this cookie secret if it is still live; an idle one is deleted. */
export async function resumeSession(store: Store, secret: string | undefined, now: Date, secure: boolean): Promise<OpenSession | undefined> {
  if (!secret) return undefined;
  const session = await store.findSession(hashSecret(secret));
  if (!session) return undefined;
  const idle = now.getTime() - Date.parse(session.lastSeenAt);
  if (idle >= SESSION_IDLE_MS) {
    await store.deleteSession(session.id);
    return undefined;
  }
  if (idle < TOUCH_AFTER_MS) return { session, secret, cookies: [] };
  await store.touchSession(session.id, now);
  // The cookie's own lifetime restarts with the session's.
  return { session: { ...session, lastSeenAt: now.toISOString() }, secret, cookies: [sessionCookie(secret, secure)] };
}

/** The session cookie's name for a request over HTTPS (`secure`) or not. */
export function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/**
 * The session secret the request presents: none, one, or `ambiguous` when it sends the cookie twice.
 * Cookies ignore ports, so a page on another port of this host (or a sibling subdomain over HTTP) can
 * plant a second one under a longer path, which the browser then sends first; taking either could
 * swap the owner into an account that is not theirs, so a request with two is signed out.
 */
export function presentedSession(facts: RequestFacts): { secret?: string; ambiguous: string[] } {
  const values = facts.cookieValues[sessionCookieName(facts.https)] ?? [];
  return values.length > 1 ? { ambiguous: values } : { secret: values[0], ambiguous: [] };
}

/** The `Set-Cookie` that removes the session cookie. */
export function clearSessionCookie(secure: boolean): string {
  return cookie(sessionCookieName(secure), "", { secure, maxAgeSeconds: 0 });
}

/**
 * `Set-Cookie` values removing the session cookie at every path that can hold one sent to `pathname`:
 * a planted cookie lives under some prefix of the path it was sent to, and only its own path deletes it.
 */
export function clearSessionCookiesAlong(pathname: string, secure: boolean): string[] {
  const segments = pathname.split("/").filter(Boolean).slice(0, 8);
  const paths = new Set(["/"]);
  segments.forEach((_, i) => {
    const prefix = `/${segments.slice(0, i + 1).join("/")}`;
    paths.add(prefix).add(`${prefix}/`);
  });
  return [...paths].map((path) => cookie(sessionCookieName(secure), "", { secure, maxAgeSeconds: 0, path }));
}

/** Ends the session of every secret presented (a planted one included: it is someone's to lose). */
export async function endPresentedSessions(store: Store, secrets: string[]): Promise<void> {
  for (const secret of secrets) {
    const session = await store.findSession(hashSecret(secret));
    if (session) await store.deleteSession(session.id);
  }
}

function sessionCookie(secret: string, secure: boolean): string {
  return cookie(sessionCookieName(secure), secret, { secure, maxAgeSeconds: SESSION_IDLE_MS / 1000 });
}
