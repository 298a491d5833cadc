// VTIMEZONE definitions of a few zones with daylight saving time in both hemispheres, a half-hour
// offset and none, as calendar apps write them (the rules in force since 2011, so right for 2026–2029).
// The differential test gives them to ical.js (which knows no IANA zone by itself) and, under invented
// names, to feeds.

/** One observance: when it starts (wall time in the offset before), the offsets, and its yearly rule. */
interface Observance {
  kind: "STANDARD" | "DAYLIGHT";
  start: string;
  from: string;
  to: string;
  rule?: string;
}

const ZONES: Record<string, Observance[]> = {
  "Europe/Berlin": [
    { kind: "DAYLIGHT", start: "19700329T020000", from: "+0100", to: "+0200", rule: "FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU" },
    { kind: "STANDARD", start: "19701025T030000", from: "+0200", to: "+0100", rule: "FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU" },
  ],
  "America/New_York": [
    { kind: "DAYLIGHT", start: "20070311T020000", from: "-0500", to: "-0400", rule: "FREQ=YEARLY;BYMONTH=3;BYDAY=2SU" },
    { kind: "STANDARD", start: "20071104T020000", from: "-0400", to: "-0500", rule: "FREQ=YEARLY;BYMONTH=11;BYDAY=1SU" },
  ],
  "America/St_Johns": [
    { kind: "DAYLIGHT", start: "20110313T020000", from: "-0330", to: "-0230", rule: "FREQ=YEARLY;BYMONTH=3;BYDAY=2SU" },
    { kind: "STANDARD", start: "20111106T020000", from: "-0230", to: "-0330", rule: "FREQ=YEARLY;BYMONTH=11;BYDAY=1SU" },
  ],
  "Australia/Sydney": [
    { kind: "STANDARD", start: "20080406T030000", from: "+1100", to: "+1000", rule: "FREQ=YEARLY;BYMONTH=4;BYDAY=1SU" },
    { kind: "DAYLIGHT", start: "20081005T020000", from: "+1000", to: "+1100", rule: "FREQ=YEARLY;BYMONTH=10;BYDAY=1SU" },
  ],
  "Asia/Kolkata": [{ kind: "STANDARD", start: "19700101T000000", from: "+0530", to: "+0530" }],
  "Fixed -0330": [{ kind: "STANDARD", start: "16010101T000000", from: "-0330", to: "-0330" }],
};

/** The zones defined here: IANA names, and "Fixed -0330", which only a VTIMEZONE can name. */
export const DEFINED_ZONES = Object.keys(ZONES);

/** The zones with a daylight saving time change, and the 2027 dates of their changes. */
export const CHANGE_DAYS: Record<string, string[]> = {
  "Europe/Berlin": ["2027-03-28", "2027-10-31"],
  "America/New_York": ["2027-03-14", "2027-11-07"],
  "America/St_Johns": ["2027-03-14", "2027-11-07"],
  "Australia/Sydney": ["2027-04-04", "2027-10-03"],
};

/** The VTIMEZONE of `zone` (one of DEFINED_ZONES) under the TZID `name`, as CRLF lines. */
export function vtimezone(zone: string, name = zone): string[] {
  const observances = ZONES[zone];
  if (!observances) throw new RangeError(`no definition for ${zone}`);
  const lines = ["BEGIN:VTIMEZONE", `TZID:${name}`];
  for (const o of observances) {
    lines.push(`BEGIN:${o.kind}`, `DTSTART:${o.start}`, `TZOFFSETFROM:${o.from}`, `TZOFFSETTO:${o.to}`);
    if (o.rule) lines.push(`RRULE:${o.rule}`);
    lines.push(`END:${o.kind}`);
  }
  lines.push("END:VTIMEZONE");
  return lines;
}
