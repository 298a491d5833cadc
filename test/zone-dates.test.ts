// A stay's nights and "today" at a property are the dates its wall clock shows (CONTRACT §8). zoneDate
// remembers a zone's offset per UTC hour instead of asking Intl every time; these checks hold it to
// Intl's own answer around every change of time in zones whose changes are unusual, and at random
// instants in every zone Intl knows, asked in random order so the remembered hours vary.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { zoneDate } from "../src/engine/wall-time.js";

const references = new Map<string, Intl.DateTimeFormat>();

/** The date and offset Intl shows in `zone` at `ms`, read without zoneDate's shortcut. */
function intl(ms: number, zone: string): { date: string; offset: number } {
  let format = references.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit",
    });
    references.set(zone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(new Date(ms))) parts[part.type] = part.value;
  const [year, month, day] = [Number(parts["year"]), Number(parts["month"]), Number(parts["day"])];
  const shown = Date.UTC(year, month - 1, day, Number(parts["hour"]), Number(parts["minute"]), Number(parts["second"]));
  return { date: `${parts["year"]!.padStart(4, "0")}-${parts["month"]}-${parts["day"]}`, offset: shown - Math.floor(ms / 1000) * 1000 };
}

const DAY = 86_400_000;
const FROM = Date.UTC(1970, 0, 1);
const TO = Date.UTC(2041, 0, 1);

/** Every instant (to the second) at which `zone`'s offset changes between FROM and TO, found week by week. */
function offsetChanges(zone: string): number[] {
  const changes: number[] = [];
  let before = intl(FROM, zone).offset;
  for (let t = FROM + 7 * DAY; t < TO; t += 7 * DAY) {
    const now = intl(t, zone).offset;
    if (now === before) continue;
    let [low, high] = [t - 7 * DAY, t];
    while (high - low > 1000) {
      const mid = low + Math.floor((high - low) / 2000) * 1000;
      if (intl(mid, zone).offset === before) low = mid;
      else high = mid;
    }
    changes.push(high);
    before = now;
  }
  return changes;
}

/** Distances from a change of time worth asking about: both sides, to the millisecond, up to a day. */
const AROUND = [0, 1, 999, 1000, 60_000, 29 * 60_000, 30 * 60_000, 31 * 60_000, 59 * 60_000, 3_599_999, 3_600_000, 3_601_000, 2 * 3_600_000, 23 * 3_600_000, DAY]
  .flatMap((d) => [d, -d]);

/** `items` in a random order (fast-check's seed, so a failure can be replayed). */
const shuffled = <T>(items: T[], seed: number): T[] => {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

describe("zoneDate", () => {
  it.each([
    // Samoa skipped 30 December 2011 (UTC−10 → UTC+14); Lord Howe moves by 30 minutes, at half past a UTC hour;
    // Santiago changes at midnight local time; Dublin's winter time is the negative DST of its law;
    // Casablanca suspends DST for Ramadan; Troll moves by two hours; Kathmandu and Chatham sit at :45.
    "Pacific/Apia", "Australia/Lord_Howe", "America/Santiago", "Europe/Dublin", "Africa/Casablanca", "Antarctica/Troll",
    "Asia/Kathmandu", "Pacific/Chatham", "America/St_Johns", "Asia/Tehran", "America/Los_Angeles", "pacific/apia",
  ])("shows Intl's date on both sides of every change of time in %s, 1970–2040", (zone) => {
    const changes = offsetChanges(zone);
    expect(changes.length).toBeGreaterThan(0);
    const instants = shuffled(changes.flatMap((change) => AROUND.map((d) => change + d)), changes.length);
    const wrong = instants.filter((ms) => zoneDate(new Date(ms), zone) !== intl(ms, zone).date);
    expect(wrong.map((ms) => `${new Date(ms).toISOString()} ${zoneDate(new Date(ms), zone)} (Intl ${intl(ms, zone).date})`)).toEqual([]);
  });

  it("shows Intl's date at any instant in every zone Intl knows", () => {
    const zones = Intl.supportedValuesOf("timeZone");
    fc.assert(
      fc.property(fc.constantFrom(...zones), fc.integer({ min: FROM, max: TO }), (zone, ms) => zoneDate(new Date(ms), zone) === intl(ms, zone).date),
      { numRuns: 20_000 },
    );
  });
});
