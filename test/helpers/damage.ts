// Damages one event of a feed the way real exports get damaged (issue 19), for malformed-event tests.
//
//   const body = damageEvent(buildIcs(stays), "a@x", DAMAGES[0]);   // a@x's DTSTART becomes 2026XX01

/** One way an event's dates get damaged: a change to the VEVENT's unfolded lines. */
export interface Damage {
  /** What the damage looks like in the feed, to name tests by. */
  name: string;
  apply(lines: string[]): string[];
}

const isProperty = (line: string, name: string) => line.startsWith(`${name};`) || line.startsWith(`${name}:`);
/** The damage that writes `line` (e.g. `DTEND;VALUE=DATE:20270230`) in place of the event's line of that name. */
export function replaceWith(line: string): Damage {
  const name = /^[A-Z-]+/.exec(line)![0];
  return { name: line, apply: (lines) => lines.map((l) => (isProperty(l, name) ? line : l)) };
}

/** The damages of issue 19, in its order, then its DATE-TIME variants. */
export const DAMAGES: readonly Damage[] = [
  replaceWith("DTSTART;VALUE=DATE:2026XX01"),
  { name: "DTSTART line missing", apply: (lines) => lines.filter((l) => !isProperty(l, "DTSTART")) },
  replaceWith("DTSTART:tomorrow"),
  replaceWith("DTSTART;VALUE=DATE:20271340"),
  replaceWith("DTEND;VALUE=DATE:20270230"),
  replaceWith("DTSTART:20271301T150000Z"),
  replaceWith("DTSTART;TZID=Europe/Paris:20270230T150000"),
];

/** `ics` (CRLF, as `buildIcs` writes it) with `damage` applied to the VEVENT whose UID is `uid`. */
export function damageEvent(ics: string, uid: string, damage: Damage): string {
  const lines = ics.split("\r\n");
  const out: string[] = [];
  let event: string[] | null = null;
  for (const line of lines) {
    if (line === "BEGIN:VEVENT") event = [];
    if (!event) {
      out.push(line);
      continue;
    }
    event.push(line);
    if (line === "END:VEVENT") {
      out.push(...(event.includes(`UID:${uid}`) ? damage.apply(event) : event));
      event = null;
    }
  }
  return out.join("\r\n");
}
