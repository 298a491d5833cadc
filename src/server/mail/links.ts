// Where links in mails start (CONTRACT §16): `serve --base-url` when given, else the URL serve prints; never a
// request's Host or X-Forwarded-Host, since a client-chosen host in a password-reset link hands the link's
// token to whoever owns that host.

/** What the dashboard needs of mail: whether it is on, where links start, and a way to send at once. */
export interface DashboardMail {
  /** `--base-url` (no trailing slash), when given. */
  baseUrl?: string;
  /** The URL serve listens at, read when a link is made. */
  serverUrl: () => string;
  /** Looks at the mail outbox now, so a reset mail does not wait for the next poll. */
  wake: () => void;
}

/** The start of a link in a mail, whatever the request that asked for it says about its host. */
export function mailLinkBase(mail: DashboardMail): string {
  return mail.baseUrl ?? mail.serverUrl();
}
