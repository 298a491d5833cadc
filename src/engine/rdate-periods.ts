// RDATE;VALUE=PERIOD (RFC 5545 §3.3.9, §3.8.5.2): each value is `start/end` or `start/duration`, and that
// occurrence ends where its period does, not after the series' own length.
import { UTC_ZONE, wallOf, wallToInstant, type WallZone } from "./wall-zones.js";

/** One period as the series reads it: its start as written, and the instant (epoch ms) it ends. */
export interface ReadPeriod {
  start: string;
  end: number;
}

const DAY_MS = 86_400_000;
// RFC 5545 §3.3.6 dur-value, positive (a period's is): weeks, or days and/or a time.
const DURATION = /^\+?P(?:(\d+)W|(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?)$/i;

/**
 * Reads a PERIOD value whose date-times are on `clock` (UTC where written with Z). Null when either half
 * is unreadable, or the end is not after the start (RFC 5545 §3.3.9: it MUST be after it).
 */
export function readPeriod(value: string, clock: WallZone): ReadPeriod | null {
  const [start = "", after = "", ...more] = value.split("/");
  const wall = more.length === 0 ? wallOf(start) : null;
  if (wall === null) return null;
  const startClock = start.endsWith("Z") ? UTC_ZONE : clock;
  const instant = wallToInstant(wall, startClock);
  const duration = DURATION.exec(after);
  let end: number | null;
  if (duration && /\d/.test(after)) {
    const [weeks, days, hours, minutes, seconds] = duration.slice(1).map((part) => Number(part ?? 0)) as number[];
    // Days and weeks are nominal (the same wall time, across a clock change); hours and less are exact (§3.3.6).
    end = wallToInstant(wall + (weeks! * 7 + days!) * DAY_MS, startClock) + ((hours! * 60 + minutes!) * 60 + seconds!) * 1000;
  } else {
    const endWall = wallOf(after);
    end = endWall === null ? null : wallToInstant(endWall, after.endsWith("Z") ? UTC_ZONE : clock);
  }
  return end !== null && end > instant ? { start, end } : null;
}
