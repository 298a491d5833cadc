// Server-side sessions (CONTRACT §9): the cookie holds a random secret, the store its SHA-256 hash.
// A session ends on sign-out, on a password change, or after 30 days without a visit.
import type { SessionRecord, Store } from "../../store/types.js";
import { hashSecret, newSecret } from "../accounts.js";
import { cookie } from "./http.js";

/** Cookie of a signed-in browser. */
export const SESSION_COOKIE = "calsync_session";
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

/** The `Set-Cookie` that removes the session cookie. */
export function clearSessionCookie(secure: boolean): string {
  return cookie(SESSION_COOKIE, "", { secure, maxAgeSeconds: 0 });
}

function sessionCookie(secret: string, secure: boolean): string {
  return cookie(SESSION_COOKIE, secret, { secure, maxAgeSeconds: SESSION_IDLE_MS / 1000 });
}
