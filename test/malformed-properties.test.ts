// Property (issue 19): for a random stored set and a feed where random events get random damage, no
// reservation whose UID is still in the feed is cancelled or changes its dates.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffReservations } from "../src/engine/diff.js";
import type { StoredReservation } from "../src/engine/model.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import { applyDiff } from "./helpers/apply-diff.js";
import { DAMAGES, damageEvent, replaceWith, type Damage } from "./helpers/damage.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";

const now = new Date();
const HOUR = 3_600_000;
const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** A stay or block with a UID from a pool, all-day or timed, past, current or upcoming. */
const eventArb = fc
  .record({
    allDay: fc.boolean(),
    offset: fc.integer({ min: -30, max: 400 }),
    length: fc.integer({ min: 1, max: 14 }),
    summary: fc.constantFrom("Reserved", "Airbnb (Not available)", "Blocked", "Reserved - Jane Doe"),
  })
  .map(({ allDay, offset, length, summary }) => ({
    start: allDay ? day(offset) : new Date(now.getTime() + offset * 6 * HOUR).toISOString(),
    end: allDay ? day(offset + length) : new Date(now.getTime() + (offset * 6 + length) * HOUR).toISOString(),
    summary,
  }));

const year = fc.integer({ min: 2000, max: 2099 });
/** A date that is not a real one: month 0 or 13–99, day 0, or a day past the end of its month. */
const impossibleDate = fc
  .oneof(
    fc.tuple(year, fc.constantFrom(0, 13, 14, 20, 99), fc.integer({ min: 1, max: 28 })),
    fc.tuple(year, fc.integer({ min: 1, max: 12 }), fc.constant(0)),
    fc.tuple(year, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 32, max: 99 })),
    fc.tuple(year, fc.constantFrom(4, 6, 9, 11), fc.constant(31)),
    fc.tuple(year, fc.constant(2), fc.integer({ min: 30, max: 31 })),
    fc.tuple(year.filter((y) => y % 4 !== 0), fc.constant(2), fc.constant(29)),
  )
  .map(([y, month, dayOfMonth]) => `${pad(y, 4)}${pad(month)}${pad(dayOfMonth)}`);

/** The damages of issue 19, or an impossible DATE or DATE-TIME on DTSTART or DTEND. */
const damageArb: fc.Arbitrary<Damage> = fc.oneof(
  fc.constantFrom(...DAMAGES),
  fc
    .record({ name: fc.constantFrom("DTSTART", "DTEND"), date: impossibleDate, time: fc.constantFrom("", "T150000", "T100000Z") })
    .map(({ name, date, time }) => replaceWith(`${name}${time ? "" : ";VALUE=DATE"}:${date}${time}`)),
);

/** What becomes of a stored event in the next feed. */
const fateArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: "kept" as const }) },
  { weight: 3, arbitrary: damageArb.map((damage) => ({ kind: "damaged" as const, damage })) },
  { weight: 1, arbitrary: fc.constant({ kind: "dropped" as const }) },
);

const scenarioArb = fc.record({
  stored: fc.array(eventArb, { minLength: 1, maxLength: 12 }),
  fates: fc.array(fateArb, { minLength: 12, maxLength: 12 }),
  added: fc.array(fc.tuple(eventArb, fc.option(damageArb, { nil: undefined })), { maxLength: 4 }),
  source: fc.constantFrom("airbnb" as const, "vrbo" as const, "other" as const),
  force: fc.boolean(),
});

/** One sync the way the engine runs it: parse, then diff with the unreadable UIDs; nothing written when the guard trips. */
function sync(stored: StoredReservation[], text: string, source: "airbnb" | "vrbo" | "other", force: boolean): StoredReservation[] {
  const parsed = parseFeed(text, { source, now });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const diff = diffReservations(stored, parsed.events, { now, force, unreadable: parsed.unreadable.map((event) => event.uid) });
  return diff.suspicious ? stored : applyDiff(stored, diff);
}

describe("malformed events (fast-check)", () => {
  it("never cancels, moves or stretches a reservation whose UID is still in the feed, whatever the damage", () => {
    fc.assert(
      fc.property(scenarioArb, ({ stored: storedEvents, fates, added, source, force }) => {
        const events: IcsEvent[] = storedEvents.map((event, i) => ({ uid: `s${i}@x`, ...event }));
        const before = sync([], buildIcs(events), source, true);

        const next = events.filter((_, i) => fates[i]!.kind !== "dropped");
        const fresh = added.map(([event], i) => ({ uid: `n${i}@x`, ...event }));
        let text = buildIcs([...next, ...fresh]);
        events.forEach((event, i) => {
          const fate = fates[i]!;
          if (fate.kind === "damaged") text = damageEvent(text, event.uid!, fate.damage);
        });
        added.forEach(([, damage], i) => {
          if (damage) text = damageEvent(text, `n${i}@x`, damage);
        });
        const after = sync(before, text, source, force);

        for (const event of next) {
          const was = before.find((row) => row.uid === event.uid);
          if (!was) {
            // Only a timed event within one (UTC) date is never stored: it takes no night (CONTRACT §4).
            expect(event.start.slice(0, 10)).toBe(event.end!.slice(0, 10));
            continue;
          }
          const now = after.find((row) => row.uid === event.uid)!;
          expect([now.status, now.start, now.end]).toEqual([was.status, was.start, was.end]);
        }
        // A new event with unreadable dates is skipped, not stored with rolled-over dates.
        added.forEach(([, damage], i) => {
          if (damage) expect(after.some((row) => row.uid === `n${i}@x`)).toBe(false);
        });
      }),
      { numRuns: 200 },
    );
  });
});
