// Owner accounts of the dashboard (CONTRACT §9): emails as sign-in names, and one-time invite links
// through which an owner chooses a password. Shared by the CLI (`owner add|update|invite`) and the dashboard.
import { createHash, randomBytes } from "node:crypto";
import type { Store } from "../store/types.js";

/** How long an invite link works. */
export const INVITE_LIFETIME_MS = 72 * 60 * 60 * 1000;

/** An email as stored and compared: trimmed, lower-case (nobody expects `Ann@` and `ann@` to be two accounts). */
export function normalizeEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

// One bare address (RFC 5321's Mailbox, dot-atom local part; letters beyond ASCII for international
// addresses): no display name, no angle brackets, no comments, quotes or second address.
const ATEXT = "[\\p{L}\\p{N}!#$%&'*+/=?^_`{|}~-]+";
const DOMAIN_LABEL = "[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]{0,61}[\\p{L}\\p{N}])?";
const BARE_ADDRESS = new RegExp(`^(?=[^@]{1,64}@)${ATEXT}(?:\\.${ATEXT})*@${DOMAIN_LABEL}(?:\\.${DOMAIN_LABEL})+$`, "u");

/**
 * True for one bare address (`ann@example.com`: a dot-atom before the `@`, a host name with a dot after it, at most
 * 254 characters). `<ann@example.com>`, `Ann <ann@example.com>`, `a@b.com, c@d.com` and `"a b"@example.com` are not.
 */
export function isPlausibleEmail(email: string): boolean {
  return email.length <= 254 && BARE_ADDRESS.test(email);
}

/** SHA-256 of an invite token or session secret, hex: what the store keeps instead of the secret. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** A new random secret: 32 bytes, base64url (43 characters, safe in paths and cookies). */
export function newSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** An issued invite (`owner invite --json`). */
export interface Invite {
  ownerId: string;
  /** `<baseUrl>/invite/<token>`: works once, until `expiresAt`. */
  url: string;
  expiresAt: string;
}

/**
 * Creates a one-time invite link for `ownerId` on the server at `baseUrl` (no trailing slash); with `email`, its
 * mail is written to the outbox with it (CONTRACT §16), for `calsync serve --smtp-url` to send.
 */
export async function issueInvite(store: Store, ownerId: string, baseUrl: string, now = new Date(), options: { email?: boolean } = {}): Promise<Invite> {
  const token = newSecret();
  const expiresAt = new Date(now.getTime() + INVITE_LIFETIME_MS);
  const url = `${baseUrl}/invite/${token}`;
  const record = await store.createInvite({
    ownerId,
    hash: hashSecret(token),
    expiresAt,
    ...(options.email ? { mail: { kind: "invite" as const, payload: { url, expiresAt: expiresAt.toISOString() }, expiresAt } } : {}),
  });
  return { ownerId, url, expiresAt: record.expiresAt };
}
