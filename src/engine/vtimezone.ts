// A VTIMEZONE for an IANA zone (RFC 5545 §3.6.5), so that a feed's `TZID=Europe/Lisbon` times read the same in
// every calendar app. Built from Intl's offsets over the years the feed spans: one observance per change of
// offset, each with its own DTSTART, which needs no RRULE and stays exact for zones whose rules changed.
import { intlZone } from "./wall-zones.js";

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

// Feeds are served again and again over the same zones and years: each block is worked out once.
const made = new Map<string, string | null>();

/** The VTIMEZONE block of `zone` covering the years `fromYear`–`toYear`, or null when Intl does not know the zone. */
export function vtimezone(zone: string, fromYear: number, toYear: number): string | null {
  const key = `${zone} ${fromYear} ${toYear}`;
  let block = made.get(key);
  if (block === undefined) {
    block = buildVtimezone(zone, fromYear, toYear);
    if (made.size >= 1000) made.clear();
    made.set(key, block);
  }
  return block;
}

function buildVtimezone(zone: string, fromYear: number, toYear: number): string | null {
  const wall = intlZone(zone);
  if (!wall) return null;
  const start = Date.UTC(fromYear, 0, 1);
  const end = Date.UTC(toYear + 1, 0, 1);
  const first = wall.offsetAt(start);
  const changes: Array<{ at: number; from: number; to: number }> = [];
  let before = first;
  for (let day = start + DAY_MS; day <= end; day += DAY_MS) {
    const now = wall.offsetAt(day);
    if (now === before) continue;
    // The minute of the change, between the two days.
    let lo = day - DAY_MS;
    let hi = day;
    while (hi - lo > MINUTE_MS) {
      const mid = lo + Math.floor((hi - lo) / (2 * MINUTE_MS)) * MINUTE_MS;
      if (wall.offsetAt(mid) === before) lo = mid;
      else hi = mid;
    }
    changes.push({ at: hi, from: before, to: now });
    before = now;
  }
  const offsets = [first, ...changes.map((c) => c.to)];
  const standard = Math.min(...offsets);
  const lines = ["BEGIN:VTIMEZONE", `TZID:${zone}`];
  const block = (at: number, from: number, to: number) => {
    const kind = to > standard ? "DAYLIGHT" : "STANDARD";
    // DTSTART is the wall time of the change on the clock before it (TZOFFSETFROM).
    lines.push(`BEGIN:${kind}`, `DTSTART:${wallStamp(at + from)}`, `TZOFFSETFROM:${offset(from)}`, `TZOFFSETTO:${offset(to)}`, `END:${kind}`);
  };
  block(start, first, first);
  for (const change of changes) block(change.at, change.from, change.to);
  lines.push("END:VTIMEZONE");
  return lines.join("\r\n");
}

function wallStamp(wall: number): string {
  return new Date(wall).toISOString().replace(/[-:]/g, "").slice(0, 15);
}

function offset(ms: number): string {
  const minutes = Math.round(ms / MINUTE_MS);
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
}
