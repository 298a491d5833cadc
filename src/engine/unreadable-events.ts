// Events whose dates cannot be read (CONTRACT §4: "A malformed event never changes what is stored").
// node-ical keeps no raw text of DTSTART/DTEND: it keeps the rolled-over Date (30 February → 2 March)
// or the bad string, and cannot tell a roll-over from a real date. So the raw VEVENT text is read
// here, before node-ical, and each unreadable VEVENT is cut out of the body: node-ical never makes an
// event of it, whether it has a UID or not (an event without UID cannot be matched any other way).
import type { SyncWarning } from "../types.js";
import { NO_UID_PREFIX } from "./model.js";
import { keptUid } from "./uid.js";
import { rruleProblem } from "./rrule-text.js";
import { icalDateProblem } from "./strict-date.js";

/** An event left out because its dates cannot be read; `uid` is "" for an event without UID. */
export interface UnreadableEvent {
  uid: string;
  message: string;
}

/** A body with its unreadable VEVENTs cut out, and what was cut. */
export interface SetAside {
  body: string;
  unreadable: UnreadableEvent[];
}

/** The VEVENT being read: where it starts in the body and the properties that decide readability. */
interface OpenEvent {
  start: number;
  depth: number;
  uid?: string;
  dtstart?: string;
  dtend?: string;
  transparent: boolean;
  /** The first RRULE's value: a rule that cannot be read makes the series unreadable, not the feed. */
  rrule?: string;
}

/** The content lines this reader needs, by the name at the start of the line (names are upper case: canonical-lines.ts). */
const NEEDED = /(BEGIN|END|UID|DTSTART|DTEND|TRANSP|RRULE)[;:]/y;

/**
 * Cuts the VEVENTs whose DTSTART is missing, whose DTSTART or DTEND is not a real date or time, or whose
 * RRULE cannot be read, out of `body` (folded lines and CRLF or LF line ends read as iCalendar does). Transparent events are left
 * for the parser to drop.
 */
export function setAsideUnreadable(body: string): SetAside {
  const stack: string[] = [];
  const cuts: Array<[number, number]> = [];
  const unreadable: UnreadableEvent[] = [];
  let open: OpenEvent | null = null;

  const read = (line: string, raw: string, start: number, next: number) => {
    const name = raw.toUpperCase();
    if (name === "BEGIN") {
      stack.push(valueOf(line).trim().toUpperCase());
      if (!open && stack.at(-1) === "VEVENT") open = { start, depth: stack.length, transparent: false };
    } else if (name === "END") {
      const at = stack.lastIndexOf(valueOf(line).trim().toUpperCase());
      if (at >= 0) stack.length = at;
      if (open && stack.length < open.depth) {
        const problem = problemOf(open);
        if (problem) {
          cuts.push([open.start, next]);
          unreadable.push({ uid: open.uid ?? "", message: problem });
        }
        open = null;
      }
    } else if (open && stack.length === open.depth) {
      // Properties of the VEVENT itself, not of a VALARM inside it.
      if (name === "UID") open.uid = keptUid(valueOf(line).trim());
      else if (name === "TRANSP") open.transparent = valueOf(line).trim().toUpperCase() === "TRANSPARENT";
      else if (name === "DTSTART" || name === "DTEND") open[name === "DTSTART" ? "dtstart" : "dtend"] = valueOf(line);
      else if (name === "RRULE") open.rrule ??= valueOf(line);
    }
  };

  // Physical lines are unfolded into logical ones (a line starting with a space or tab continues the last).
  // Only the lines this reader needs are cut out of the body and unfolded: feeds run to megabytes.
  let logical: string | null = null;
  let logicalName = "";
  let logicalStart = 0;
  for (let from = 0; ; ) {
    const newline = body.indexOf("\n", from);
    const to = newline < 0 ? body.length : newline;
    const end = to > from && body.charCodeAt(to - 1) === 13 ? to - 1 : to;
    const first = body.charCodeAt(from);
    if (from > 0 && (first === 32 || first === 9)) {
      if (logical !== null) logical += body.slice(from + 1, end);
    } else {
      if (logical !== null) read(logical, logicalName, logicalStart, from);
      NEEDED.lastIndex = from;
      const needed = NEEDED.exec(body);
      logical = needed ? body.slice(from, end) : null;
      logicalName = needed?.[1] ?? "";
      logicalStart = from;
    }
    if (newline < 0) break;
    from = newline + 1;
  }
  if (logical !== null) read(logical, logicalName, logicalStart, body.length);

  if (cuts.length === 0) return { body, unreadable };
  let kept = "";
  let at = 0;
  for (const [start, end] of cuts) {
    kept += body.slice(at, start);
    at = end;
  }
  return { body: kept + body.slice(at), unreadable: distinctUnreadable(unreadable) };
}

/** Why the event's dates cannot be read, or null; a transparent event takes no night, so only its RRULE is judged. */
function problemOf(event: OpenEvent): string | null {
  // node-ical throws on a rule it cannot read, which would fail the whole feed: checked even for free time.
  const rule = event.rrule === undefined ? null : rruleProblem(event.rrule.trim());
  if (rule) return `RRULE ${rule}`;
  if (event.transparent) return null;
  if (event.dtstart === undefined) return "DTSTART is missing";
  // Stray spaces around a value are judged without them (node-ical reads "20261223 " as that date);
  // a DATE-TIME node-ical still cannot read is caught after parsing.
  const start = icalDateProblem(event.dtstart.trim());
  if (start) return `DTSTART ${start}`;
  // An unreadable DTEND is not a missing one: reading it as one night would shorten the stay.
  const end = event.dtend === undefined ? null : icalDateProblem(event.dtend.trim());
  return end ? `DTEND ${end}` : null;
}

/** The value of a content line: what follows the first colon outside a quoted parameter. */
function valueOf(line: string): string {
  let colon = line.indexOf(":");
  // Exchange writes an unquoted `TZID=tzone://Microsoft/Custom`: that colon belongs to the parameter.
  if (line.startsWith("//", colon + 1) && /;TZID=tzone$/i.test(line.slice(0, colon))) colon = line.indexOf(":", colon + 1);
  const quote = line.indexOf('"');
  // No quoted parameter before the first colon (nearly every line): that colon is the one.
  if (colon < 0 || quote < 0 || quote > colon) return colon < 0 ? "" : line.slice(colon + 1);
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === '"') quoted = !quoted;
    else if (char === ":" && !quoted) return line.slice(i + 1);
  }
  return "";
}

/** One entry per UID (the first reason wins); events without UID each keep their own. */
export function distinctUnreadable(events: UnreadableEvent[]): UnreadableEvent[] {
  const seen = new Set<string>();
  return events.filter((event) => {
    if (event.uid === "") return true;
    if (seen.has(event.uid)) return false;
    seen.add(event.uid);
    return true;
  });
}

/** An occurrence's identity suffix (`UID#2027-01-01`, `UID#2027-01-01T15:00:00.000Z`). */
const OCCURRENCE = /#\d{4}-\d{2}-\d{2}(?:T[\d:.]+Z)?$/;

/**
 * Whether a reservation's identity belongs to an unreadable event: the UID itself, an occurrence of a
 * recurring UID, or, when an event without UID is unreadable, any identity made from a hash (which of
 * them it was cannot be known, and a wrong cancellation is worse than a late one).
 */
export function unreadableIdentities(uids: Iterable<string>): (identity: string) => boolean {
  const set = new Set(uids);
  if (set.size === 0) return () => false;
  return (identity) => {
    if (set.has(identity)) return true;
    if (identity.startsWith(NO_UID_PREFIX)) return set.has("");
    const occurrence = OCCURRENCE.exec(identity);
    return occurrence !== null && set.has(identity.slice(0, occurrence.index));
  };
}

/** The `unreadable_event` warnings a calendar's result carries for `events` (CONTRACT §4). */
export function unreadableWarnings(events: readonly UnreadableEvent[]): SyncWarning[] {
  return events.map(({ uid, message }) => ({ code: "unreadable_event", uid, message }));
}
