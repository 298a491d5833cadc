// Builds small .ics feeds for tests, with dates relative to today so tests never go stale.
//
//   import { buildIcs, day } from "./helpers/ics.js";
//   const feed = buildIcs([
//     { uid: "stay-1", start: day(3), end: day(7), summary: "Reserved" },         // all-day, 4 nights
//     { uid: "gone", start: day(10), end: day(12), status: "CANCELLED" },        // STATUS:CANCELLED
//     { start: day(20), summary: "Blocked" },                                     // no UID, no DTEND (1 night)
//     { uid: "visit", start: "2031-01-02T15:00:00Z", end: "2031-01-02T16:00:00Z" }, // timed, UTC
//   ]);
//
// Leave a field out and its line is left out, so missing UID/DTEND/SUMMARY can be tested too.

/** Today + `offset` days as a local `YYYY-MM-DD`. */
export function day(offset: number): string {
  const now = new Date();
  const date = new Date(now.getFullYear(), now.getMonth(), now.getDate() + offset);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** One event of `buildIcs`: `YYYY-MM-DD` dates become all-day, ISO instants become UTC date-times. */
export interface IcsEvent {
  uid?: string;
  start: string;
  end?: string;
  summary?: string;
  status?: "CANCELLED" | "CONFIRMED";
  description?: string;
  /** Writes `TRANSP:TRANSPARENT` ("free" time, which takes no night). */
  transparent?: boolean;
}

/** A whole VCALENDAR with CRLF line endings holding `events` in order. */
export function buildIcs(events: IcsEvent[], options: { prodId?: string } = {}): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", `PRODID:${options.prodId ?? "-//calsync//tests//EN"}`, "CALSCALE:GREGORIAN"];
  for (const event of events) {
    lines.push("BEGIN:VEVENT", "DTSTAMP:20240101T000000Z");
    if (event.uid !== undefined) lines.push(`UID:${event.uid}`);
    lines.push(dateLine("DTSTART", event.start));
    if (event.end !== undefined) lines.push(dateLine("DTEND", event.end));
    if (event.summary !== undefined) lines.push(`SUMMARY:${escapeText(event.summary)}`);
    if (event.description !== undefined) lines.push(`DESCRIPTION:${escapeText(event.description)}`);
    if (event.status !== undefined) lines.push(`STATUS:${event.status}`);
    if (event.transparent) lines.push("TRANSP:TRANSPARENT");
    lines.push("END:VEVENT");
  }
  lines.push("END:VCALENDAR");
  return `${lines.join("\r\n")}\r\n`;
}

function dateLine(name: string, value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${name};VALUE=DATE:${value.replaceAll("-", "")}`;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`not a date: ${JSON.stringify(value)}`);
  // 2031-01-02T15:00:00.000Z → 20310102T150000Z
  return `${name}:${new Date(ms).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "")}`;
}

/** RFC 5545 TEXT escaping: backslash, semicolon, comma and newlines. */
function escapeText(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(/\r?\n/g, "\\n");
}
