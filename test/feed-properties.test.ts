// Property-based tests: whatever the feed, the engine's invariants hold (issue 6).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffReservations } from "../src/engine/diff.js";
import type { FeedEvent, StoredReservation } from "../src/engine/model.js";
import { takesNoNight } from "../src/engine/nights.js";
import { parseFeed } from "../src/engine/parse-feed.js";
import { applyDiff } from "./helpers/apply-diff.js";
import { buildIcs, day, type IcsEvent } from "./helpers/ics.js";

const now = new Date();
const HOUR = 3_600_000;

/** A feed event: UIDs from a small pool so duplicates happen, sometimes none; all-day or timed. */
const eventArb: fc.Arbitrary<IcsEvent> = fc
  .record({
    uid: fc.option(fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h", "__proto__"), { nil: undefined }),
    allDay: fc.boolean(),
    offset: fc.integer({ min: -60, max: 400 }),
    length: fc.integer({ min: 1, max: 14 }),
    summary: fc.constantFrom("Reserved", "Airbnb (Not available)", "Blocked", "Reserved - Jane Doe", "Owner stay"),
    cancelled: fc.boolean(),
  })
  .map(({ uid, allDay, offset, length, summary, cancelled }) => {
    const start = allDay ? day(offset) : new Date(now.getTime() + offset * 6 * HOUR).toISOString();
    const end = allDay ? day(offset + length) : new Date(now.getTime() + (offset * 6 + length) * HOUR).toISOString();
    return { ...(uid === undefined ? {} : { uid }), start, end, summary, ...(cancelled ? { status: "CANCELLED" as const } : {}) };
  });
const feedArb = fc.array(eventArb, { maxLength: 25 });
const sourceArb = fc.constantFrom("airbnb" as const, "vrbo" as const, "other" as const);

function parse(events: IcsEvent[], source: "airbnb" | "vrbo" | "other"): FeedEvent[] {
  const result = parseFeed(buildIcs(events), { source, now });
  if (!result.ok) throw new Error(result.error.message);
  return result.events;
}

/** Distinct identities of a generated feed that are not cancelled, the last copy of each winning. */
function expectedFound(events: IcsEvent[]): number {
  const last = new Map<string, IcsEvent>();
  for (const event of events) {
    const key = event.uid ?? `nouid|${event.start}|${event.end}|${event.summary}`;
    last.delete(key);
    last.set(key, event);
  }
  return [...last.values()].filter((event) => event.status !== "CANCELLED" && takesNight(event)).length;
}

/** A timed event (UTC here) within one date takes no night and is no reservation (CONTRACT §4). */
function takesNight(event: IcsEvent): boolean {
  return event.start.length === 10 || event.start.slice(0, 10) < (event.end ?? event.start).slice(0, 10);
}

/** Syncs `events` into `stored` (force, so the guard never stops a generated feed) and returns the new rows. */
function sync(stored: StoredReservation[], events: FeedEvent[]): StoredReservation[] {
  return applyDiff(stored, diffReservations(stored, events, { now, force: true }));
}

describe("feed invariants (fast-check)", () => {
  it("found equals the distinct non-cancelled identities of the feed", () => {
    fc.assert(
      fc.property(feedArb, sourceArb, (events, source) => {
        const diff = diffReservations([], parse(events, source), { now });
        expect(diff.counts.found).toBe(expectedFound(events));
        expect(diff.counts.created).toBe(diff.counts.found);
      }),
      { numRuns: 100 },
    );
  });

  it("a second sync of the same feed reports 0 changes, whatever was stored before", () => {
    fc.assert(
      fc.property(fc.array(feedArb, { maxLength: 3 }), feedArb, sourceArb, (history, events, source) => {
        let stored: StoredReservation[] = [];
        for (const earlier of history) stored = sync(stored, parse(earlier, source));
        const incoming = parse(events, source);
        stored = sync(stored, incoming);
        const again = diffReservations(stored, incoming, { now });
        expect(again.counts).toEqual({ found: expectedFound(events), created: 0, updated: 0, cancelled: 0 });
        expect([again.inserts, again.updates, again.cancels]).toEqual([[], [], []]);
        expect(again.suspicious).toBeNull();
      }),
      { numRuns: 100 },
    );
  });

  it("after a sync every event of the feed is an active reservation, each identity once", () => {
    fc.assert(
      fc.property(feedArb, feedArb, sourceArb, (before, after, source) => {
        const incoming = parse(after, source);
        const stored = sync(sync([], parse(before, source)), incoming);
        const active = new Set(incoming.filter((e) => !e.cancelled && !takesNoNight(e)).map((e) => e.uid));
        const rows = stored.filter((row) => active.has(row.uid));
        expect(rows.every((row) => row.status === "active")).toBe(true);
        expect(new Set(rows.map((row) => row.uid)).size).toBe(rows.length);
        expect(rows.length).toBe(active.size);
      }),
      { numRuns: 100 },
    );
  });

  it("lists each counted change once for webhooks: as many created, updated and cancelled as the counts say", () => {
    fc.assert(
      fc.property(feedArb, feedArb, sourceArb, (before, after, source) => {
        const stored = sync([], parse(before, source));
        const diff = diffReservations(stored, parse(after, source), { now, force: true });
        const tally = (change: string) => diff.changes.filter((c) => c.change === change).length;
        expect([tally("created"), tally("updated"), tally("cancelled")]).toEqual([diff.counts.created, diff.counts.updated, diff.counts.cancelled]);
        const cancelled = diff.changes.flatMap((c) => (c.change === "cancelled" ? [c.row.id] : []));
        expect(cancelled.sort()).toEqual([...diff.cancels].sort());
      }),
      { numRuns: 100 },
    );
  });

  it("never cancels a reservation that has already ended", () => {
    fc.assert(
      fc.property(feedArb, feedArb, sourceArb, (before, after, source) => {
        const stored = sync([], parse(before, source));
        const diff = diffReservations(stored, parse(after, source), { now, force: true });
        // Ended = departure today or earlier (CONTRACT §4, §8); no property zone, so today is the machine's.
        const today = day(0);
        for (const id of diff.cancels) expect(stored.find((r) => r.id === id)!.departure > today).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

describe("parser invariants (fast-check)", () => {
  /** Tokens that break parsers: line ends, folds, component markers, separators, odd characters. */
  const token = fc.constantFrom(
    "\r", "\n", "\r\n ", "\n\t", "BEGIN:VEVENT\n", "END:VEVENT\n", "END:VCALENDAR", "BEGIN:VCALENDAR\n",
    ";TZID=Mars/X", ";VALUE=DATE", ":", ";", ",", "\\", "\uFFFD", "\u0000", "\uFEFF", "__proto__", "RRULE:FREQ=SECONDLY\n",
    "DTSTART:", "99999999", "T25", "UID:", "RECURRENCE-ID:20310101\n", "EXDATE:x\n",
  );
  const edit = fc.record({ at: fc.nat(), cut: fc.nat({ max: 40 }), insert: fc.array(fc.oneof(token, fc.string({ maxLength: 8 })), { maxLength: 3 }) });

  it("never throws on a mangled feed: events, or not_icalendar / parse_error", () => {
    fc.assert(
      fc.property(feedArb, fc.array(edit, { maxLength: 6 }), (events, edits) => {
        let text = buildIcs(events);
        for (const { at, cut, insert } of edits) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + insert.join("") + text.slice(i + cut);
        }
        const result = parseFeed(text, { source: "airbnb", now });
        if (result.ok) expect(new Set(result.events.map((e) => e.uid)).size).toBe(result.events.length);
        else expect(["not_icalendar", "parse_error"]).toContain(result.error.code);
      }),
      { numRuns: 300 },
    );
  });

  it("reads every all-day date exactly as written", () => {
    const date = fc.date({ min: new Date(1990, 0, 1), max: new Date(2090, 11, 31), noInvalidDate: true });
    fc.assert(
      fc.property(date, fc.integer({ min: 1, max: 400 }), (first, nights) => {
        const start = local(first);
        const end = local(new Date(first.getFullYear(), first.getMonth(), first.getDate() + nights));
        const [event] = parse([{ uid: "x", start, end }], "other");
        expect([event?.start, event?.end]).toEqual([start, end]);
      }),
      { numRuns: 200 },
    );
  });
});

/** `YYYY-MM-DD` of a date by its local fields. */
function local(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
