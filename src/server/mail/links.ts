// Where links in mails start (CONTRACT §16): `serve --base-url` when given; else, for a mail asked for by a
// request (a password reset), the request's own origin when a trusted proxy says what it is; else the URL
// serve prints.
import type { RequestFacts } from "../dashboard/http.js";

/** What the dashboard needs of mail: whether it is on, where links start, and a way to send at once. */
export interface DashboardMail {
  /** `--base-url` (no trailing slash), when given. */
  baseUrl?: string;
  /** The URL serve listens at, read when a link is made. */
  serverUrl: () => string;
  /** Looks at the mail outbox now, so a reset mail does not wait for the next poll. */
  wake: () => void;
}

/** The start of a link in a mail a request asked for. */
export function requestLinkBase(mail: DashboardMail, facts: RequestFacts, trustProxy: boolean): string {
  if (mail.baseUrl) return mail.baseUrl;
  if (trustProxy && facts.origin !== "invalid:") return facts.origin;
  return mail.serverUrl();
}
