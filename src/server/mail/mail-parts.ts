// What every mail is made of (CONTRACT §16): its context, the rendered parts, the common footer and how a time
// reads. Apart from templates.ts, so each file of templates imports these and templates.ts imports them all.
import { html, type SafeHtml } from "../dashboard/html.js";

/** A mail ready for the transport. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** What every template knows besides the mail's payload. */
export interface MailContext {
  ownerName: string;
  /** Where links into the dashboard start (`serve --base-url`, else the URL serve prints); no trailing slash. */
  baseUrl: string;
}

// Every mail ends the same way, saying why it came and where to stop it.
export function mail(subject: string, lines: string[], body: SafeHtml): RenderedMail {
  const footer = "You get this because you own properties on this calsync server. Choose which mails you get on the dashboard's Notifications page.";
  const page = html`<!doctype html><html><body style="font-family: sans-serif; line-height: 1.5">
${body}
<p style="color: #666; font-size: 0.9em">${footer}</p>
</body></html>`;
  // A header is one line: a newline in a property name must not start another header.
  return { subject: subject.replace(/[\r\n]+/g, " "), text: [...lines, "", "-- ", footer, ""].join("\n"), html: page.value };
}

/** An ISO time as a mail shows it: `2027-03-12 09:30 UTC`. */
export function when(iso: string): string {
  return iso.replace("T", " ").replace(/:\d\d(\.\d+)?Z$/, " UTC");
}
