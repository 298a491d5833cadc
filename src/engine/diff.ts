// diffReservations(): pure CONTRACT §4 — what one feed changes in one calendar, and the counts to report.
import { isAllDay, type DatedEvent, type FeedEvent, type StoredReservation } from "./model.js";
import { datedEvent, takesNoNight, todayAt } from "./nights.js";
import { pairReissued } from "./reissued.js";
import { runAtOnce, runInSlices } from "./slices.js";
import { unreadableIdentities } from "./unreadable-events.js";

/** The four numbers reported per calendar. */
export interface DiffCounts {
  found: number;
  created: number;
  updated: number;
  cancelled: number;
}

/** Changes to apply in one transaction, their counts, and whether the mass-cancellation guard tripped. */
export interface DiffResult {
  counts: DiffCounts;
  /** New identities, with their nights. */
  inserts: DatedEvent[];
  /** Known rows to overwrite (changed, back from cancelled, re-issued or a moved block under a new UID). */
  updates: Array<{ id: string; event: DatedEvent }>;
  /** Ids of active rows to mark cancelled. */
  cancels: string[];
  /** Set when the feed would cancel (nearly) every upcoming reservation; the caller then writes nothing. */
  suspicious: { upcoming: number; cancelling: number } | null;
  /** Each change the counts count, one by one: what webhooks announce (CONTRACT §11). */
  changes: ReservationChange[];
}

/**
 * One counted change: `created` (a new identity, or with `row` a cancelled one that is back),
 * `updated` (with the row as it was), `cancelled` (the row as it was).
 */
export type ReservationChange =
  | { change: "created"; event: DatedEvent; row?: StoredReservation }
  | { change: "updated"; event: DatedEvent; row: StoredReservation }
  | { change: "cancelled"; row: StoredReservation };

/** Options of one diff. */
export interface DiffOptions {
  /** The sync's clock: decides which reservations have ended. */
  now: Date;
  /** The property's IANA zone: where nights and "today" are read (CONTRACT §8). @default the event's zone; today on the machine */
  timeZone?: string | null;
  /** Skip the mass-cancellation guard. @default false */
  force?: boolean;
  /**
   * UIDs of the feed's unreadable events (`parseFeed`'s `unreadable`; "" for one without UID): their
   * stored reservations stay exactly as they are and count as found. @default []
   */
  unreadable?: readonly string[];
}

/** Compares one calendar's stored reservations with its freshly parsed feed (CONTRACT §4). */
export function diffReservations(stored: StoredReservation[], incoming: FeedEvent[], options: DiffOptions): DiffResult {
  return runAtOnce(diffSteps(stored, incoming, options));
}

/** `diffReservations`, letting the event loop turn every few milliseconds (a server diffing a 20,000-event feed). */
export function diffReservationsInSlices(stored: StoredReservation[], incoming: FeedEvent[], options: DiffOptions): Promise<DiffResult> {
  return runInSlices(diffSteps(stored, incoming, options));
}

/** Items between two yields of `diffSteps`. */
const STEP = 256;

function* diffSteps(stored: StoredReservation[], incoming: FeedEvent[], options: DiffOptions): Generator<void, DiffResult> {
  let work = 0;
  // A stay whose departure is today or earlier (at the property) has ended: a guest checking out today is never cancelled.
  const today = todayAt(options.now, options.timeZone);
  const ended = (r: StoredReservation) => r.departure <= today;

  // Duplicate identities in one feed count once: the last one wins. A timed event within one local day
  // takes no night (CONTRACT §4): no reservation, not counted, and a stored one is cancelled below.
  const events = new Map<string, DatedEvent>();
  const noNight = new Set<string>();
  for (const event of incoming) {
    events.delete(event.uid);
    noNight.delete(event.uid);
    if (takesNoNight(event, options.timeZone)) noNight.add(event.uid);
    else events.set(event.uid, datedEvent(event, options.timeZone));
    if (++work % STEP === 0) yield;
  }
  const known = new Map<string, StoredReservation>();
  for (const row of stored) if (!known.has(row.uid)) known.set(row.uid, row);

  const counts: DiffCounts = { found: 0, created: 0, updated: 0, cancelled: 0 };
  const inserts: DatedEvent[] = [];
  const updates: Array<{ id: string; event: DatedEvent }> = [];
  const cancels: string[] = [];
  const seen = new Set<string>();
  const fresh: DatedEvent[] = [];
  const changes: ReservationChange[] = [];

  for (const event of events.values()) {
    if (++work % STEP === 0) yield;
    const row = known.get(event.uid);
    if (row) seen.add(row.id);
    if (event.cancelled) {
      if (row?.status === "active" && !ended(row)) cancels.push(row.id);
      continue;
    }
    counts.found++;
    if (!row) fresh.push(event);
    else if (row.status === "cancelled") {
      updates.push({ id: row.id, event });
      counts.created++;
      changes.push({ change: "created", event, row });
    } else if (changed(row, event)) {
      updates.push({ id: row.id, event });
      counts.updated++;
      changes.push({ change: "updated", event, row });
    } else if (row.eventZone !== (event.zone ?? null)) {
      // The zone the nights are recomputed from when the property's changes: kept current, not a visible change.
      updates.push({ id: row.id, event });
    }
  }

  // A stored stay whose event now takes no night (a fix of this rule, a moved time, a new property zone) is
  // cancelled unless it ended. The feed still holds the event, so this is no sign of a broken feed: the
  // mass-cancellation guard leaves these rows out, as it does echoes.
  const quiet = new Set<string>();
  if (noNight.size > 0) {
    for (const row of stored) {
      if (seen.has(row.id) || !noNight.has(row.uid)) continue;
      seen.add(row.id);
      if (row.status === "active" && !ended(row)) {
        cancels.push(row.id);
        quiet.add(row.id);
      }
    }
  }

  // A malformed event never changes what is stored: its reservations are present, as they were.
  const unreadable = unreadableIdentities(options.unreadable ?? []);
  for (const row of stored) {
    if (seen.has(row.id) || !unreadable(row.uid)) continue;
    seen.add(row.id);
    if (row.status === "active") counts.found++;
  }

  // A stay that ended and dropped off the feed is history, not a cancellation nor a block to move.
  const lost = stored.filter((row) => row.status === "active" && !seen.has(row.id) && !ended(row));
  const reissued = pairReissued(fresh, lost);
  const renamed = new Set(reissued.values());
  // Nothing lost (a first sync, a feed that only grew): no new event continues a stored row.
  const moved =
    lost.length === 0
      ? new Map<DatedEvent, StoredReservation>()
      : pairMovedBlocks(
          fresh.filter((event) => !reissued.has(event)),
          lost.filter((row) => !renamed.has(row)),
        );
  for (const event of fresh) {
    if (++work % STEP === 0) yield;
    const same = reissued.get(event);
    if (same) {
      // A channel re-issued the booking under a new UID: the row takes it, and that is one update (CONTRACT §8).
      // A block under a new UID is Airbnb's daily window again: as below, only a change people can see counts.
      updates.push({ id: same.id, event });
      if (event.kind === "booking" || changed(same, event)) {
        counts.updated++;
        changes.push({ change: "updated", event, row: same });
      }
      continue;
    }
    const twin = moved.get(event);
    if (twin) {
      // Airbnb re-emits its rolling "Not available" window daily with moved dates (and sometimes a new
      // UID): the same block moving, not one created and one cancelled per day. The row takes the new
      // UID either way, but only a change people can see counts.
      updates.push({ id: twin.id, event });
      if (changed(twin, event)) {
        counts.updated++;
        changes.push({ change: "updated", event, row: twin });
      }
    } else {
      inserts.push(event);
      counts.created++;
      changes.push({ change: "created", event });
    }
  }
  const continued = new Set([...moved.values(), ...renamed]);
  for (const row of lost) if (!continued.has(row)) cancels.push(row.id);
  counts.cancelled = cancels.length;
  const byId = cancels.length > 0 ? new Map(stored.map((row) => [row.id, row])) : undefined;
  for (const id of cancels) changes.push({ change: "cancelled", row: byId!.get(id)! });

  // Echoes are left out: cancelling one opens no night (never served, never a conflict), and a channel that
  // stops importing calsync's feed (a rotated URL) drops them all at once, which must not stop its sales.
  let upcoming = 0;
  for (const row of stored) if (row.status === "active" && !ended(row) && !row.echoOf && !quiet.has(row.id)) upcoming++;
  let cancelling = 0;
  for (const id of cancels) if (!byId!.get(id)!.echoOf && !quiet.has(id)) cancelling++;
  const tripped = (upcoming >= 2 && cancelling === upcoming) || (upcoming >= 5 && cancelling >= 0.8 * upcoming);
  return { counts, inserts, updates, cancels, suspicious: tripped && !options.force ? { upcoming, cancelling } : null, changes };
}

/**
 * Pairs new blocks with the unmatched stored blocks they most plausibly continue: same end date first,
 * then same start date, then any overlap (both ends moved). Each stored block pairs at most once.
 */
function pairMovedBlocks(fresh: DatedEvent[], lost: StoredReservation[]): Map<DatedEvent, StoredReservation> {
  const pairs = new Map<DatedEvent, StoredReservation>();
  const free = lost.filter((row) => row.kind === "block");
  const rules: Array<(row: StoredReservation, event: FeedEvent) => boolean> = [
    (row, event) => row.end === event.end,
    (row, event) => row.start === event.start,
    (row, event) => sameForm(row, event) && row.start < event.end && event.start < row.end,
  ];
  // Rule by rule over all events, so that an earlier event's overlap never takes a later one's exact match.
  for (const rule of rules) {
    for (const event of fresh) {
      if (event.kind !== "block" || pairs.has(event)) continue;
      const at = free.findIndex((row) => rule(row, event));
      if (at < 0) continue;
      pairs.set(event, free[at]!);
      free.splice(at, 1);
    }
  }
  return pairs;
}

function sameForm(row: StoredReservation, event: FeedEvent): boolean {
  return isAllDay(row.start) === isAllDay(event.start);
}

function changed(row: StoredReservation, event: DatedEvent): boolean {
  return (
    row.kind !== event.kind ||
    row.start !== event.start ||
    row.end !== event.end ||
    row.arrival !== event.arrival ||
    row.departure !== event.departure ||
    row.summary !== event.summary ||
    (row.echoOf ?? null) !== (event.echoOf ?? null) ||
    !sameDetails(row.details, event.details)
  );
}

/** `canonical(a) === canonical(b)`, without building either when every value present is the same. */
function sameDetails(a: object, b: object): boolean {
  const keys = presentKeys(a);
  if (keys.length !== presentKeys(b).length) return false;
  for (const key of keys) {
    if ((a as Record<string, unknown>)[key] !== (b as Record<string, unknown>)[key]) return canonical(a) === canonical(b);
  }
  return true;
}

function presentKeys(value: object): string[] {
  return Object.keys(value).filter((key) => present((value as Record<string, unknown>)[key]));
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

/** JSON with sorted keys and no undefined fields, so equal details compare equal however they were built. */
function canonical(value: object): string {
  const entries = Object.entries(value)
    .filter(([, v]) => present(v))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}
