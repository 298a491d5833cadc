// A wall clock read the RFC 5545 way (§3.3.5): a local time that happens twice (the hour the clocks go
// back) is its first occurrence, and one in the gap when they go forward keeps the offset before the gap.
// A zone is anything that can say its offset at an instant: an IANA zone (Intl), a fixed offset, or a
// VTIMEZONE of the feed itself (zone-rules.ts).
import { formatter } from "./wall-time.js";

/** A zone as a wall-clock reader needs it. */
export interface WallZone {
  /** How far the zone's wall clock is ahead of UTC at `instant` (epoch ms), in milliseconds. */
  offsetAt(instant: number): number;
  /**
   * The zone to keep with a timed event (FeedEvent.zone), where its nights are read when the property has
   * none: an IANA name, or null when only an offset can say it (see `zoneLabel`).
   */
  name: string | null;
}

const DAY_MS = 86_400_000;

/** `20270424T210000` (with or without Z) as a wall time, fields read as UTC; null when not a date-time. */
export function wallOf(value: string): number | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z?$/.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  const date = new Date(Date.UTC(2000, mo! - 1, d!, h!, mi!, s!));
  date.setUTCFullYear(y!);
  return date.getTime();
}

/** The instant a wall time (its fields read as UTC, in epoch ms) names in `zone`. */
export function wallToInstant(wall: number, zone: WallZone): number {
  // Offsets a day either side: no zone changes its clock twice within two days.
  const before = zone.offsetAt(wall - DAY_MS);
  const after = zone.offsetAt(wall + DAY_MS);
  const fits = (offset: number) => zone.offsetAt(wall - offset) === offset;
  const early = fits(before);
  const late = after !== before && fits(after);
  // Both fit: the repeated hour; the first occurrence is the earlier instant.
  if (early && late) return Math.min(wall - before, wall - after);
  if (early) return wall - before;
  if (late) return wall - after;
  // Neither: the gap; the offset before it applies (02:30 on a spring-forward night reads as 03:30).
  return wall - before;
}

/** The wall time (fields as UTC, epoch ms) `zone` shows at `instant`. */
export function instantToWall(instant: number, zone: WallZone): number {
  return instant + zone.offsetAt(instant);
}

/** A fixed offset of `minutes` ahead of UTC. */
export function fixedZone(minutes: number, name: string | null = offsetName(minutes)): WallZone {
  const offset = minutes * 60_000;
  return { offsetAt: () => offset, name };
}

export const UTC_ZONE: WallZone = { offsetAt: () => 0, name: null };

/** `+05:30`, `-03:30`: how a numeric zone is kept (wall-time.ts reads it back). */
export function offsetName(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/**
 * The zone kept with an event from `start` to `end` in `zone`: its IANA name, else its offset at the start
 * (a VTIMEZONE with an invented name has no name anyone else can read). A feed's VTIMEZONE under an IANA
 * name is kept by that name only where IANA's rules show the same offsets at both ends: nights are read
 * by the kept name later, and they must be the feed's (CONTRACT §4).
 */
export function zoneLabel(zone: WallZone, start: number, end = start): string {
  const intl = zone.name === null ? null : intlZone(zone.name);
  const agrees = intl === zone || (intl !== null && intl.offsetAt(start) === zone.offsetAt(start) && intl.offsetAt(end) === zone.offsetAt(end));
  return agrees ? zone.name! : offsetName(Math.round(zone.offsetAt(start) / 60_000));
}

const intlZones = new Map<string, WallZone | null>();

/** An IANA zone (any case Intl accepts) as a WallZone, or null when Intl does not know it. */
export function intlZone(name: string): WallZone | null {
  let zone = intlZones.get(name);
  if (zone === undefined) {
    const format = formatter(name);
    zone = format ? { offsetAt: hourly(format), name } : null;
    // Zone names come from feeds: remember a bounded number of spellings.
    if (intlZones.size >= 1000) intlZones.clear();
    intlZones.set(name, zone);
  }
  return zone;
}

const HOUR_MS = 3_600_000;
/** Hours remembered per zone spelling (three years of them). */
const MAX_HOURS = 26_304;

/**
 * Intl's offset, remembered per UTC hour: formatToParts costs tens of microseconds, and a feed reads the
 * same few hours again and again. An hour within which the offset changes (Lord Howe changes at :30) is
 * never remembered, always read exactly.
 */
function hourly(format: Intl.DateTimeFormat): (instant: number) => number {
  const hours = new Map<number, number | null>();
  return (instant) => {
    const hour = Math.floor(instant / HOUR_MS);
    let offset = hours.get(hour);
    if (offset === undefined) {
      const first = intlOffset(format, hour * HOUR_MS);
      offset = first === intlOffset(format, hour * HOUR_MS + HOUR_MS - 1000) ? first : null;
      if (hours.size >= MAX_HOURS) hours.clear();
      hours.set(hour, offset);
    }
    return offset ?? intlOffset(format, instant);
  };
}

function intlOffset(format: Intl.DateTimeFormat, instant: number): number {
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(instant))) parts[part.type] = Number(part.value);
  const shown = Date.UTC(parts["year"] ?? 0, (parts["month"] ?? 1) - 1, parts["day"] ?? 1, parts["hour"] ?? 0, parts["minute"] ?? 0, parts["second"] ?? 0);
  return shown - Math.floor(instant / 1000) * 1000;
}
