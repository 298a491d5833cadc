// A VTIMEZONE of the feed as a wall clock (RFC 5545 §3.6.5): its STANDARD and DAYLIGHT observances,
// each starting at its DTSTART (a wall time in the offset it changes from) and again at each date of
// its RRULE or RDATE. Outlook and Exchange invent names ("Customized Time Zone", "Custom Fixed -0330"):
// the definition is what counts, whatever the name. node-ical expands the observances' rules.
import ical from "node-ical";
import { recurrenceCost, type RuleOptions } from "./recurrence-cost.js";
import type { WallZone } from "./wall-zones.js";

/** One STANDARD or DAYLIGHT block, as written. */
export interface Observance {
  /** DTSTART as wall time (fields read as UTC, epoch ms). */
  start: number;
  /** TZOFFSETFROM and TZOFFSETTO, in minutes ahead of UTC. */
  from: number;
  to: number;
  /** The RRULE value, if any (`FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU`). */
  rule?: string;
  /** RDATE wall times (fields as UTC, epoch ms). */
  dates: number[];
}

const YEAR_MS = 365.25 * 86_400_000;
/** Most onsets one observance's rule may give within three years: a real zone has three. */
const MAX_RULE_DATES = 100;

/**
 * The zone a VTIMEZONE defines, or null when it has no usable observance. `name` is kept with events
 * (FeedEvent.zone) when it is an IANA name; an invented one is kept as the offset (see `zoneLabel`).
 */
export function vtimezoneZone(observances: Observance[], name: string | null): WallZone | null {
  // Feeds of one channel repeat the same VTIMEZONEs on every sync: expanding their rules is the dear part.
  const key = `${name}\n${JSON.stringify(observances)}`;
  let zone = known.get(key);
  if (zone === undefined) {
    zone = zoneOf(observances, name);
    if (known.size >= 200) known.clear();
    known.set(key, zone);
  }
  return zone;
}

const known = new Map<string, WallZone | null>();

function zoneOf(observances: Observance[], name: string | null): WallZone | null {
  const usable = observances.filter((o) => Number.isFinite(o.start) && Number.isFinite(o.from) && Number.isFinite(o.to));
  if (usable.length === 0) return null;
  const rules = usable.map((o) => (o.rule ? ruleOf(o) : null));
  const fixed: Array<[number, number]> = [];
  for (const o of usable) {
    fixed.push([o.start - o.from * 60_000, o.to]);
    for (const date of o.dates) fixed.push([date - o.from * 60_000, o.to]);
  }
  const earliest = usable.reduce((a, b) => (b.start - b.from * 60_000 < a.start - a.from * 60_000 ? b : a));
  const byYear = new Map<number, Array<[number, number]>>();

  /** Onsets (instant, offset after) of the rules in the UTC year holding `instant`, with the year before. */
  const ruleOnsets = (instant: number): Array<[number, number]> => {
    const year = new Date(instant).getUTCFullYear();
    let onsets = byYear.get(year);
    if (!onsets) {
      onsets = [];
      const from = Date.UTC(year - 1, 0, 1);
      const to = Date.UTC(year + 1, 0, 1);
      usable.forEach((o, at) => {
        const rule = rules[at];
        if (!rule) return;
        // A rule that ended before the window still decides the offset after its last onset.
        const until = rule.until ?? Infinity;
        const lo = until < from ? until - 2 * YEAR_MS : from;
        const hi = until < from ? until : to;
        for (const date of rule.between(new Date(lo), new Date(hi))) onsets!.push([date.getTime() - o.from * 60_000, o.to]);
      });
      if (byYear.size >= 400) byYear.clear();
      byYear.set(year, onsets);
    }
    return onsets;
  };

  return {
    name,
    offsetAt(instant: number): number {
      let best = -Infinity;
      let offset = earliest.from;
      for (const [onset, to] of [...fixed, ...ruleOnsets(instant)]) {
        if (onset <= instant && onset >= best) {
          best = onset;
          offset = to;
        }
      }
      return offset * 60_000;
    },
  };
}

interface Rule {
  until: number | undefined;
  between(from: Date, to: Date): Date[];
}

/** The observance's RRULE, expanded by node-ical from its DTSTART read as UTC; null when unusable or too dense. */
function ruleOf(observance: Observance): Rule | null {
  const dtstart = new Date(observance.start).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  const text = `BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:zone\r\nDTSTART:${dtstart}\r\nRRULE:${observance.rule}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;
  try {
    const parsed = ical.sync.parseICS(text);
    const rrule = (parsed["zone"] as { rrule?: { options: RuleOptions; between(a: Date, b: Date, inc: boolean): Date[] } } | undefined)?.rrule;
    if (!rrule) return null;
    const options = rrule.options;
    // A hostile VTIMEZONE must not make each offset lookup expand millions of dates.
    if (recurrenceCost(options, new Date(0), new Date(3 * YEAR_MS)) > MAX_RULE_DATES) return null;
    const until = options.until instanceof Date ? options.until.getTime() : undefined;
    return { until, between: (from, to) => rrule.between(from, to, true) };
  } catch {
    return null;
  }
}
