// Double-booking detection: nights sold by two or more calendars of the same property. Pure.
//
// Decisions (see docs/two-way-sync.md):
// - Only active bookings count. Blocks are the owner's own "not available" and cancelled
//   reservations hold no nights, so neither can be sold twice.
// - Everything is compared in nights: each reservation's stored `arrival`/`departure` (CONTRACT §8:
//   timed stays read on the property's wall clock), so a 15:00 check-in and an 11:00 check-out on
//   the same day are a turnover, not an overlap, whichever form each channel uses. `from`/`to` are dates.
// - Two bookings of the SAME calendar never make a conflict on their own: a channel does not
//   sell its own night twice, so a self-overlap is a feed artefact (e.g. a changed stay exported
//   under a new UID next to the old one) that calsync can neither prevent nor the owner fix.
// - One conflict per maximal run of nights during which at least two calendars hold a booking;
//   it lists every booking active during that run. Three channels on the same nights give one
//   conflict with three reservations, not three pairs; an owner resolves a run of nights at once.
import type { ReservationSource } from "../resource-types.js";
import type { Conflict, ConflictReservation } from "../types.js";
import type { ReservationKind, ReservationStatus } from "./model.js";
import { todayAt } from "./nights.js";

/** A reservation as double-booking detection needs it (a store row joined with its property). */
export interface ConflictInput {
  id: string;
  propertyId: string;
  propertyName: string;
  /** The property's IANA zone, where "today" is read; null when not set. */
  propertyTimeZone: string | null;
  calendarId: string;
  source: ReservationSource;
  kind: ReservationKind;
  status: ReservationStatus;
  /** First night, `YYYY-MM-DD`. */
  arrival: string;
  /** The morning after the last night (exclusive), `YYYY-MM-DD`. */
  departure: string;
  summary: string;
}

/** One double booking; the wire type `Conflict` of the Sync response. */
export type ConflictFinding = Conflict;

interface Stay {
  input: ConflictInput;
  start: string;
  end: string;
}

/** Options of `findConflicts`. */
export interface FindConflictsOptions {
  /**
   * Keep only conflicts with a night on or after this moment's date at the property (its zone, else the
   * machine's). A double booking whose nights are all past cannot be resolved any more, so warning
   * about it after every sync is noise. @default every conflict, past ones too
   */
  now?: Date;
}

/**
 * The double bookings among `reservations`, sorted by property name, then first night.
 * O(n log n) per property: one sort of the stays' boundaries and one sweep over them.
 */
export function findConflicts(reservations: ConflictInput[], options: FindConflictsOptions = {}): ConflictFinding[] {
  const byProperty = new Map<string, Stay[]>();
  for (const r of reservations) {
    if (r.kind !== "booking" || r.status !== "active") continue;
    const stays = byProperty.get(r.propertyId) ?? [];
    stays.push({ input: r, start: r.arrival, end: r.departure });
    byProperty.set(r.propertyId, stays);
  }

  const conflicts: ConflictFinding[] = [];
  for (const stays of byProperty.values()) {
    const found = sweep(stays);
    const { now } = options;
    const today = now && todayAt(now, stays[0]!.input.propertyTimeZone);
    // `to` is exclusive: a run ending today had its last night yesterday.
    conflicts.push(...(today === undefined ? found : found.filter((conflict) => conflict.to > today)));
  }
  return conflicts.sort(compareConflicts);
}

/**
 * `findConflicts` over `propertyIds`, reading one property's bookings at a time: an owner's whole
 * history at once (100,000 rows for 5,000 calendars) was the largest allocation of a sync.
 */
export async function findPropertyConflicts(
  readBookings: (propertyId: string) => Promise<ConflictInput[]>,
  propertyIds: Iterable<string>,
  options: FindConflictsOptions = {},
): Promise<ConflictFinding[]> {
  const conflicts: ConflictFinding[] = [];
  for (const propertyId of new Set(propertyIds)) conflicts.push(...findConflicts(await readBookings(propertyId), options));
  return conflicts.sort(compareConflicts);
}

/** The order double bookings are reported in: by property name, then id, then first night. */
export function compareConflicts(a: ConflictFinding, b: ConflictFinding): number {
  return compare(a.propertyName, b.propertyName) || compare(a.propertyId, b.propertyId) || compare(a.from, b.from);
}

/** Walks one property's check-in/check-out days in order, tracking how many calendars are booked. */
function sweep(stays: Stay[]): ConflictFinding[] {
  const points: Array<{ at: string; stay: Stay; arrives: boolean }> = [];
  for (const stay of stays) {
    points.push({ at: stay.start, stay, arrives: true }, { at: stay.end, stay, arrives: false });
  }
  points.sort((a, b) => compare(a.at, b.at));

  const active = new Set<Stay>();
  const perCalendar = new Map<string, number>();
  const found: ConflictFinding[] = [];
  let run: { from: string; members: Set<Stay> } | undefined;

  for (let i = 0; i < points.length; ) {
    const at = points[i]!.at;
    const arrived: Stay[] = [];
    // Apply every departure and arrival of this day before judging it: DTEND is exclusive, so a
    // guest leaving the day another arrives never shares a night with them.
    for (; i < points.length && points[i]!.at === at; i++) {
      const { stay, arrives } = points[i]!;
      const calendarId = stay.input.calendarId;
      const count = (perCalendar.get(calendarId) ?? 0) + (arrives ? 1 : -1);
      if (count === 0) perCalendar.delete(calendarId);
      else perCalendar.set(calendarId, count);
      if (arrives) {
        active.add(stay);
        arrived.push(stay);
      } else {
        active.delete(stay);
      }
    }

    if (perCalendar.size >= 2) {
      if (!run) run = { from: at, members: new Set(active) };
      else for (const stay of arrived) run.members.add(stay);
    } else if (run) {
      found.push(toConflict(run.from, at, run.members));
      run = undefined;
    }
  }
  return found;
}

function toConflict(from: string, to: string, members: Set<Stay>): ConflictFinding {
  const stays = [...members].sort(
    (a, b) => compare(a.start, b.start) || compare(a.input.source, b.input.source) || compare(a.input.id, b.input.id),
  );
  const first = stays[0]!.input;
  const reservations: ConflictReservation[] = stays.map(({ input }) => ({
    id: input.id,
    source: input.source,
    summary: input.summary,
  }));
  return { propertyId: first.propertyId, propertyName: first.propertyName, from, to, reservations };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
