// The reservations timeline as data: the next N nights, one row (or more, when a calendar's own
// stays overlap) per calendar, each reservation a bar over its nights. Pure: no store, no HTML.
import { findConflicts, type ConflictInput } from "../../engine/conflicts.js";
import { propertyTurnovers } from "../../engine/turnovers.js";
import type { ReservationKind } from "../../engine/model.js";
import { addDays } from "../../engine/nights.js";
import type { ReservationSource } from "../../resource-types.js";

/** A reservation on the timeline, as the store lists it (active ones only count). */
export type TimelineReservation = Omit<ConflictInput, "propertyName" | "propertyTimeZone"> & {
  /** The reservation a channel's echo repeats (CONTRACT §8). @default null */
  echoOf?: string | null;
};

/** A run of nights drawn on the timeline. */
export interface TimelineSpan {
  /** Index of the first night shown (0 = the first day of the window). */
  column: number;
  /** Nights shown (clipped to the window). */
  span: number;
  /** First night and the morning after the last night, as stored (not clipped). */
  from: string;
  to: string;
  /** Nights of the whole stay (not clipped). */
  nights: number;
  /** True when the stay goes on before / after the window. */
  before: boolean;
  after: boolean;
}

export interface TimelineBar extends TimelineSpan {
  id: string;
  kind: ReservationKind;
  summary: string;
  /** True when this booking is part of a double booking. */
  conflict: boolean;
  /** True when this booking arrives within the buffer nights after another one leaves (CONTRACT §18). */
  tight?: boolean;
  /** For a channel's echo (a block): the channel of the stay it repeats, null when that stay is not among the reservations given. */
  echoOf?: { source: ReservationSource | null };
}

export interface TimelineRow {
  calendarId: string;
  source: ReservationSource;
  /** True when the calendar's last sync failed: its bars are what the last good sync stored. */
  failing: boolean;
  /** The channel, numbered when a property has two calendars of one channel. */
  label: string;
  /** Bars that do not overlap each other; most calendars need one lane. */
  lanes: TimelineBar[][];
}

export interface TimelineConflict extends TimelineSpan {
  sources: ReservationSource[];
  summaries: string[];
  /** The reservations, in the order of `sources`: a direct stay among them is cancelled in calsync. */
  reservationIds: string[];
}

export interface Timeline {
  /** `YYYY-MM-DD` of every night shown, from `today`. */
  days: string[];
  rows: TimelineRow[];
  conflicts: TimelineConflict[];
  /** Nights of the window on which some booking or block holds the property. */
  occupiedNights: number;
}

/** Lays out `reservations` of `calendars` over `days` nights from `today` (the property's date), by their stored nights. */
export function buildTimeline(input: {
  calendars: ReadonlyArray<{ id: string; source: ReservationSource; lastStatus?: "success" | "failed" | null }>;
  reservations: readonly TimelineReservation[];
  today: string;
  days: number;
  /** The property's buffer nights: a booking arriving within them after another leaves is marked tight. @default 0 */
  bufferNights?: number;
}): Timeline {
  const days = Array.from({ length: input.days }, (_, i) => addDays(input.today, i));
  const window = { first: input.today, end: addDays(input.today, input.days) };
  const active = input.reservations.filter((r) => r.status === "active");
  // Conflicts wholly before the window are clipped away below, so no "today" filter is needed here.
  const conflicts = findConflicts(active.map((r) => ({ ...r, propertyName: "", propertyTimeZone: null })));
  const conflicted = new Set(conflicts.flatMap((c) => c.reservations.map((r) => r.id)));
  const tight = tightArrivals(active, input.bufferNights ?? 0);

  const sourceOf = new Map(input.reservations.map((r) => [r.id, r.source]));
  const occupied = new Set<number>();
  const perSource = new Map<ReservationSource, number>();
  const sourceCount = (source: ReservationSource) => input.calendars.filter((c) => c.source === source).length;
  const rows = input.calendars.map((calendar): TimelineRow => {
    const n = (perSource.get(calendar.source) ?? 0) + 1;
    perSource.set(calendar.source, n);
    const bars: TimelineBar[] = [];
    for (const r of active) {
      if (r.calendarId !== calendar.id) continue;
      const span = clip({ start: r.arrival, end: r.departure }, window, input.today);
      if (!span) continue;
      for (let i = span.column; i < span.column + span.span; i++) occupied.add(i);
      const echo = r.echoOf ? { echoOf: { source: sourceOf.get(r.echoOf) ?? null } } : {};
      bars.push({ ...span, id: r.id, kind: r.kind, summary: r.summary, conflict: conflicted.has(r.id), ...(tight.has(r.id) ? { tight: true } : {}), ...echo });
    }
    const label = sourceCount(calendar.source) > 1 ? `${calendar.source} ${n}` : calendar.source;
    return { calendarId: calendar.id, source: calendar.source, failing: calendar.lastStatus === "failed", label, lanes: intoLanes(bars) };
  });

  const shown = conflicts.flatMap((c): TimelineConflict[] => {
    const span = clip({ start: c.from, end: c.to }, window, input.today);
    return span ? [{ ...span, sources: c.reservations.map((r) => r.source), summaries: c.reservations.map((r) => r.summary), reservationIds: c.reservations.map((r) => r.id) }] : [];
  });
  return { days, rows, conflicts: shown, occupiedNights: occupied.size };
}

// The part of a run of nights inside the window, as columns; undefined when none of it is.
function clip(nights: { start: string; end: string }, window: { first: string; end: string }, today: string): TimelineSpan | undefined {
  if (nights.end <= window.first || nights.start >= window.end) return undefined;
  const first = nights.start < window.first ? window.first : nights.start;
  const end = nights.end > window.end ? window.end : nights.end;
  return {
    column: daysBetween(today, first),
    span: daysBetween(first, end),
    from: nights.start,
    to: nights.end,
    nights: daysBetween(nights.start, nights.end),
    before: nights.start < window.first,
    after: nights.end > window.end,
  };
}

// Greedy lanes: each bar goes into the first lane whose last bar has ended (check-out day = free).
function intoLanes(bars: TimelineBar[]): TimelineBar[][] {
  const lanes: TimelineBar[][] = [];
  for (const bar of [...bars].sort((a, b) => a.column - b.column || b.span - a.span)) {
    const lane = lanes.find((l) => l.at(-1)!.column + l.at(-1)!.span <= bar.column);
    if (lane) lane.push(bar);
    else lanes.push([bar]);
  }
  return lanes.length > 0 ? lanes : [[]];
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

// The bookings whose arrival is a tight turnover: the one rule of engine/turnovers.ts over the active bookings.
function tightArrivals(active: readonly TimelineReservation[], bufferNights: number): Set<string> {
  if (bufferNights === 0) return new Set();
  const bookings = active.filter((r) => r.kind === "booking" && !r.echoOf).map((r) => ({ id: r.id, propertyId: "", arrival: r.arrival, departure: r.departure }));
  const settings = { propertyId: "", checkInTime: "", checkOutTime: "", bufferNights };
  const turnovers = propertyTurnovers(bookings, settings, { from: "0000-01-01", to: "9999-12-31" });
  return new Set(turnovers.flatMap((t) => (t.tight && t.nextArrival ? [t.nextArrival.reservationId] : [])));
}
