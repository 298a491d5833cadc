// A feed body as every later reader expects it (RFC 5545 §3.1, §3.2): unfolded, and with property names,
// parameter names and the enumerated values the engine reads in upper case. A line may be folded between
// any two characters, inside a name too (`DTST` + fold + `ART`, `BEGIN:VCAL` + fold + `ENDAR`), and names
// and enumerations are case-insensitive (`dtstart;value=date`, `RRULE:freq=weekly`); node-ical and the
// line readers before it (zoned-times.ts, unreadable-events.ts) each read only one spelling, on one
// physical line. Doing it once, first, puts every reader on the same text.

/** Parameters whose values are enumerations (RFC 5545 §3.2): `VALUE=date` is `VALUE=DATE`. */
const ENUMERATED_PARAMETERS = new Set(["VALUE", "RANGE", "RELATED"]);
/** Properties whose whole value is made of enumerated words, numbers and dates: component names, rules. */
const ENUMERATED_VALUES = /(?:BEGIN|END|RRULE|EXRULE)[;:]/iy;
const LOWER = /[a-z]/g;

/** `body` unfolded, names and enumerations in upper case; lines already so are kept as they are. */
export function canonicalLines(body: string): string {
  const text = unfold(body);
  let out = "";
  let at = 0;
  // Where the next colon, lower-case letter and quote are, from the last search on (each searched for once per line at most).
  let lower = -1;
  let quote = -1;
  let colon = -1;
  for (let from = 0; from < text.length; ) {
    const newline = text.indexOf("\n", from);
    const lineEnd = newline < 0 ? text.length : newline;
    const end = lineEnd > from && text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
    if (colon < from) colon = text.indexOf(":", from) >>> 0;
    if (colon < end) {
      if (lower < from) {
        LOWER.lastIndex = from;
        lower = LOWER.exec(text)?.index ?? text.length;
      }
      if (quote < from) quote = text.indexOf('"', from) >>> 0;
      ENUMERATED_VALUES.lastIndex = from;
      // Most lines have an upper-case name and parameters: nothing to do. A quote may hide the colon.
      const work = lower < colon || quote < colon || (lower < end && ENUMERATED_VALUES.test(text));
      if (work) {
        const line = text.slice(from, end);
        const canonical = canonicalLine(line);
        if (canonical !== line) {
          out += text.slice(at, from) + canonical;
          at = end;
        }
      }
    }
    if (newline < 0) break;
    from = newline + 1;
  }
  return at === 0 ? text : out + text.slice(at);
}

/** Folded lines joined (a line break followed by one space or tab is no break at all). */
function unfold(body: string): string {
  return body.includes("\n ") || body.includes("\n\t") ? body.replace(/\r?\n[ \t]/g, "") : body;
}

/** One content line with its name, parameter names and enumerated values in upper case. */
export function canonicalLine(line: string): string {
  const name = /^[A-Za-z0-9-]+/.exec(line)?.[0];
  if (name === undefined) return line;
  const upperName = name.toUpperCase();
  let out = upperName;
  let at = name.length;
  // Parameters: `;NAME=value[,value]`, a value quoted when it holds `;`, `:` or `,`.
  while (line[at] === ";") {
    const param = /^;([A-Za-z0-9-]+)=((?:"[^"]*"|[^";:,]*)(?:,(?:"[^"]*"|[^";:,]*))*)/.exec(line.slice(at));
    if (!param) return line;
    const paramName = param[1]!.toUpperCase();
    const value = ENUMERATED_PARAMETERS.has(paramName) ? param[2]!.toUpperCase() : param[2]!;
    out += `;${paramName}=${value}`;
    at += param[0].length;
  }
  if (line[at] !== ":") return line;
  const value = line.slice(at + 1);
  ENUMERATED_VALUES.lastIndex = 0;
  return `${out}:${ENUMERATED_VALUES.test(`${upperName}:`) ? value.toUpperCase() : value}`;
}
