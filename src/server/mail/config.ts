// `serve --smtp-url` and `--mail-from` (CONTRACT §16): read once at start, so a typo is a usage error there
// and not a failed mail a day later; the URL's password is never printed.
import addressparser from "nodemailer/lib/addressparser";

/** Where and as whom mails are sent. */
export interface MailSettings {
  /** `smtp://user:pass@host:587` (STARTTLS when the server offers it) or `smtps://…:465` (implicit TLS). */
  smtpUrl: string;
  /** `Name <address>` or a bare address: the From of every mail. */
  from: string;
}

/** Why a server behind a proxy that mails links must be told its public address (CONTRACT §16). */
export const BEHIND_A_PROXY =
  "behind a proxy the URL serve listens at is not the one owners reach, and links in mails never take the host a request names";

/** A setting checked: the value, or why it is wrong (for the usage error, which names the flag). */
export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** Checks an SMTP URL: smtp: or smtps:, a host, an optional port. */
export function checkSmtpUrl(raw: string): Checked<string> {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, message: "is not a URL: give smtp://user:password@host:587 or smtps://user:password@host:465" };
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") {
    return { ok: false, message: `must start with smtp:// or smtps:// (got ${url.protocol}//)` };
  }
  if (!url.hostname) return { ok: false, message: "has no host: give smtp://user:password@host:587" };
  return { ok: true, value: url.href };
}

/** Checks a From: exactly one address with an @, with or without a display name. */
export function checkMailFrom(raw: string): Checked<string> {
  const parsed = addressparser(raw.trim());
  const only = parsed.length === 1 ? parsed[0] : undefined;
  if (!only || !("address" in only) || !only.address || !/^[^\s@]+@[^\s@]+$/.test(only.address)) {
    return { ok: false, message: 'must be one address, e.g. "calsync <calsync@example.com>" or calsync@example.com' };
  }
  return { ok: true, value: raw.trim() };
}

/** The URL as logs may show it: the password (and any query, which may hold one) replaced by ***. */
export function maskSmtpUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = "***";
    if (url.search) url.search = "?***";
    return url.href;
  } catch {
    return "<invalid url>";
  }
}

/** The domain of the From address, for Message-IDs (`<mail_…@domain>`). */
export function fromDomain(from: string): string {
  const [first] = addressparser(from);
  const address = first && "address" in first ? first.address ?? "" : "";
  return address.split("@")[1] || "calsync.invalid";
}
