// A cleaner's mail (CONTRACT §18 "Cleaners by mail"): the turnovers of the next 14 days that appeared, moved or
// disappeared in one sync. Dates and times only, never anything about the guest; the footer says why the
// cleaner gets it and links the one-click unsubscribe page, also given as List-Unsubscribe (RFC 8058).
import type { TurnoverChange } from "../../engine/turnover-changes.js";
import type { CleanerMailPayload } from "../../store/cleaner-mails.js";
import { longDay } from "../dashboard/format.js";
import { html, url } from "../dashboard/html.js";
import type { MailContext, RenderedMail } from "./mail-parts.js";

/** Where a cleaner's unsubscribe link points. */
export function unsubscribeUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/unsubscribe/${encodeURIComponent(token)}`;
}

/** Renders a cleaner's mail, with its List-Unsubscribe headers. */
export function cleanerMail(payload: unknown, { baseUrl }: MailContext): RenderedMail {
  const { propertyName, changes, unsubscribeToken } = payload as CleanerMailPayload;
  const stop = unsubscribeUrl(baseUrl, unsubscribeToken);
  const lines = changes.map(lineOf);
  const footer = `You get this because the owner of ${propertyName} listed your address for its cleaning. Stop these mails:`;
  const subject = `Cleaning schedule changed: ${propertyName}`.replace(/[\r\n]+/g, " ");
  const body = html`<!doctype html><html><body style="font-family: sans-serif; line-height: 1.5">
<p>The cleaning schedule of <strong>${propertyName}</strong> for the next 14 days changed:</p>
<ul>${lines.map((l) => html`<li>${l}</li>`)}</ul>
<p style="color: #666; font-size: 0.9em">${footer} <a href="$${url(stop)}">unsubscribe</a></p>
</body></html>`;
  return {
    subject,
    text: [`The cleaning schedule of ${propertyName} for the next 14 days changed:`, "", ...lines.map((l) => `  ${l}`), "", "-- ", footer, stop, ""].join("\n"),
    html: body.value,
    headers: { "List-Unsubscribe": `<${stop}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  };
}

function lineOf(change: TurnoverChange): string {
  const what = change.change === "new" ? "New" : change.change === "cancelled" ? "Cancelled" : "Moved";
  const next = change.nextArrival
    ? change.sameDay
      ? `same day: next guests arrive from ${change.nextArrival.checkInTime}`
      : `next arrival ${longDay(change.nextArrival.date)} from ${change.nextArrival.checkInTime}`
    : "no next arrival";
  const was = change.change === "moved" && change.previousDate !== change.date ? ` (was ${longDay(change.previousDate!)})` : "";
  return `${what}: ${longDay(change.date)}${was}, check-out ${change.checkOutTime}, ${next}`;
}
