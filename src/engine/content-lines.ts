// The content lines of an iCalendar body that the zone reader needs (RFC 5545 §3.1): unfolded, split into
// name, parameters and value (quoted parameters kept whole), each with where it lies in the body so that
// it can be cut out or rewritten.

/** One logical line. */
export interface Line {
  name: string;
  params: string[];
  value: string;
  /** Where the logical line (all its folded physical lines) starts and ends in the body. */
  start: number;
  end: number;
}

/** The body's logical lines (unfolded) that matter here, with where each lies in the body. */
export function contentLines(body: string): Line[] {
  const lines: Line[] = [];
  let start = -1;
  let text = "";
  const flush = (end: number) => {
    if (start < 0) return;
    const line = parseLine(text, start, end);
    if (line) lines.push(line);
  };
  for (let from = 0; from < body.length; ) {
    const newline = body.indexOf("\n", from);
    const next = newline < 0 ? body.length : newline + 1;
    const stop = newline < 0 ? body.length : newline > from && body.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
    const first = body.charCodeAt(from);
    if (from > 0 && (first === 32 || first === 9)) {
      if (start >= 0) text += body.slice(from + 1, stop);
    } else {
      flush(from);
      start = RELEVANT.test(body.slice(from, from + 16)) ? from : -1;
      text = start >= 0 ? body.slice(from, stop) : "";
    }
    from = next;
  }
  flush(body.length);
  return lines;
}

const RELEVANT = /^(?:BEGIN|END|UID|DTSTART|DTEND|RECURRENCE-ID|EXDATE|RDATE|TZID|TZOFFSETFROM|TZOFFSETTO|RRULE|X-WR-TIMEZONE|X-CALSYNC-[A-Z-]*)[;:]/i;

function parseLine(text: string, start: number, end: number): Line | null {
  let quoted = false;
  let colon = -1;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') quoted = !quoted;
    else if (char === ":" && !quoted) {
      colon = i;
      break;
    }
  }
  if (colon < 0) return null;
  // Exchange writes an unquoted `TZID=tzone://Microsoft/Custom`: that colon belongs to the parameter.
  if (text.startsWith("//", colon + 1) && /;TZID=tzone$/i.test(text.slice(0, colon))) {
    const next = text.indexOf(":", colon + 1);
    if (next > 0) colon = next;
  }
  const head = text.slice(0, colon);
  const parts: string[] = [];
  let part = "";
  quoted = false;
  for (const char of head) {
    if (char === '"') quoted = !quoted;
    if (char === ";" && !quoted) {
      parts.push(part);
      part = "";
    } else part += char;
  }
  parts.push(part);
  return { name: parts[0]!.toUpperCase(), params: parts.slice(1), value: text.slice(colon + 1), start, end };
}

/** A parameter's value (`TZID`, `VALUE`), quotes stripped; undefined when the line has none. */
export function paramOf(params: string[], name: string): string | undefined {
  const prefix = `${name}=`;
  const param = params.find((p) => p.toUpperCase().startsWith(prefix));
  return param === undefined ? undefined : unquote(param.slice(prefix.length));
}

/** `"Custom Fixed -0330"` → `Custom Fixed -0330`. */
export function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}
