// The channel check (CONTRACT §17): every so often, each channel link of every property is looked at, and what
// must be told is told once — `channel.stale` when a link turns stale (or stays never read that long after its
// calendar was added), `channel.recovered` on its next read, `channel.exposed` for nights exposed longer than
// twice its usual interval (at least 6 h). The store makes each once-only across instances.
import type { Channel } from "../channel-types.js";
import { DEFAULT_CHANNEL_STALE_AFTER_MS } from "../engine/channel-status.js";
import { addDays, todayAt } from "../engine/nights.js";
import { pageChannelStates, type ChannelState } from "../resources/channels.js";
import { everyPropertyPage } from "../store/every-property.js";
import type { ChannelNotice, Property, Store } from "../store/types.js";
import type { WebhookChannel } from "../types.js";

/** Exposure shorter than this is a channel's ordinary lag: 6 h. */
export const MIN_EXPOSED_MS = 6 * 3_600_000;
/**
 * Share of the time the checks may take. A check reads every property, so its length grows with their number:
 * the next starts `everyMs` after the last one ended, or 49 × its length when that is longer (about 10 s of
 * each 8 min at 50,000 properties, where checks a minute apart took a sixth of a core and grew as N²
 * per round of syncs). Stale is hours and exposure at least 6 h, so minutes of delay tell nothing later.
 */
export const CHECK_SHARE = 0.02;

/** The name under which instances sharing a database claim each period's check (Store.claimPeriodicTask). */
export const CHANNEL_CHECK_TASK = "channel-check";
/**
 * How long a claimed check keeps the other instances off when its holder never says it is done (killed
 * mid-check): they check again this long after the claim. A check takes seconds (about 30 s of CPU at 100,000
 * calendars), so it ends well within it; stale is hours and exposure at least 6 h, so a check 10 min late
 * tells nothing later that matters.
 */
export const CHECK_HOLD_MS = 10 * 60_000;

/** Options of `startChannelWatch`. */
export interface ChannelWatchOptions {
  store: Store;
  staleAfterMs?: number;
  /** Least time between the end of a check and the start of the next (longer after a long check: CHECK_SHARE). @default a quarter of `staleAfterMs`, within 100 ms … 60 s */
  everyMs?: number;
  now?: () => Date;
  /** Called when a check wrote events (to wake the delivery workers). */
  onReported?: (count: number) => void;
  onError?: (error: unknown) => void;
}

/**
 * Starts the periodic check; `stop()` ends it (a check under way finishes). The watch claims each check in the
 * store and checks only when it won: of several instances on one database one checks per period and tells the
 * store when the next is due (`nextCheckAfter`); the others look again then, or after `everyMs` if sooner.
 * `check()` checks now, unclaimed.
 */
export function startChannelWatch(options: ChannelWatchOptions): { stop(): Promise<void>; check(): Promise<number> } {
  const { store } = options;
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_CHANNEL_STALE_AFTER_MS;
  const everyMs = options.everyMs ?? Math.min(Math.max(Math.floor(staleAfterMs / 4), 100), 60_000);
  let running: Promise<number> | undefined;
  let ticking: Promise<void> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const check = () =>
    (running ??= checkChannels(store, { staleAfterMs, now: (options.now ?? (() => new Date()))() }).finally(() => (running = undefined)));
  const report = (error: unknown) => options.onError?.(error);
  const wait = (ms: number) => {
    timer = setTimeout(() => (ticking = tick().finally(() => (ticking = undefined))), ms);
    timer.unref();
  };
  // Never rejects: a failed claim, check or schedule is reported and the next tick comes all the same.
  const tick = async () => {
    let claimed = false;
    let dueInMs = everyMs;
    try {
      const claim = await store.claimPeriodicTask({ name: CHANNEL_CHECK_TASK, holdMs: CHECK_HOLD_MS });
      claimed = claim.claimed;
      if (!claim.claimed) dueInMs = claim.dueInMs;
    } catch (error) {
      report(error);
    }
    if (!claimed) {
      // Until it is due, but never longer than `everyMs`: the instance checking now may tell a next time
      // sooner than its hold. (Its own timer may fire a hair before the time it told: then it waits that hair.)
      if (!stopped) wait(Math.min(everyMs, dueInMs));
      return;
    }
    // Stopped while claiming: handed back at once, for another instance to check rather than wait out the hold.
    if (stopped) return void (await store.schedulePeriodicTask({ name: CHANNEL_CHECK_TASK, inMs: 0 }).catch(report));
    const started = performance.now();
    try {
      const count = await check();
      if (count > 0) options.onReported?.(count);
    } catch (error) {
      report(error);
    }
    const after = nextCheckAfter(everyMs, performance.now() - started);
    // Told even after a failed check: the next is due `after` from now, not a hold from the claim.
    await store.schedulePeriodicTask({ name: CHANNEL_CHECK_TASK, inMs: after }).catch(report);
    if (!stopped) wait(after);
  };
  wait(everyMs);
  return {
    // A check under way finishes, and the next is scheduled, before the database may close.
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      await running?.catch(() => undefined);
    },
    check,
  };
}

/**
 * A check shorter than this keeps its interval whatever its share: a second a minute is under 2 % anyway, and a
 * server told to check every second (a short --channel-stale-after, as in tests) on a busy machine would
 * otherwise wait 49 × a check slowed by others.
 */
export const LONG_CHECK_MS = 1000;

/** Milliseconds from the end of a check that took `tookMs` to the start of the next: `everyMs`, longer after a long check (CHECK_SHARE). */
export function nextCheckAfter(everyMs: number, tookMs: number): number {
  return tookMs < LONG_CHECK_MS ? everyMs : Math.max(everyMs, tookMs * (1 / CHECK_SHARE - 1));
}

/** One check of every property's links, a page of properties read at once; the number of events written. */
export async function checkChannels(store: Store, input: { staleAfterMs: number; now: Date }): Promise<number> {
  let written = 0;
  for await (const page of everyPropertyPage(store)) {
    const states = await pageChannelStates(store, page, { ...input, feedBase: "" });
    for (const property of page) {
      const links = states.get(property.id)!;
      const notices = links.flatMap((state) => noticesOf(property, state, input));
      const forgetBefore = addDays(todayAt(input.now, property.timeZone), -1);
      // Nothing new, and no reported night to forget: no write (a lagging channel's nights stay exposed for
      // hours, and were rewritten every check).
      if (notices.length === 0 && !links.some((link) => link.reportedNights.some((night) => night < forgetBefore))) continue;
      written += await store.recordChannelNotices({ ownerId: property.ownerId, propertyId: property.id, notices, at: input.now, forgetBefore });
    }
  }
  return written;
}

/** What one link has to tell now, before the store's once-only checks. */
export function noticesOf(property: Property, { channel, addedAt, staleNotifiedAt, reportedNights }: ChannelState, input: { staleAfterMs: number; now: Date }): ChannelNotice[] {
  const now = input.now.getTime();
  const link: WebhookChannel = { propertyId: property.id, propertyName: property.name, source: channel.source };
  const timestamp = input.now.toISOString();
  const notices: ChannelNotice[] = [];
  const neverTooLong = channel.status === "never" && now - Date.parse(addedAt) > input.staleAfterMs;
  if (staleNotifiedAt === null && (channel.status === "stale" || neverTooLong)) {
    const status = channel.status === "never" ? "never" : "stale";
    notices.push({ kind: "stale", source: channel.source, event: { type: "channel.stale", timestamp, data: { channel: link, status, lastReadAt: channel.lastReadAt } } });
  }
  if (staleNotifiedAt !== null && channel.lastReadAt !== null && channel.lastReadAt > staleNotifiedAt) {
    notices.push({ kind: "recovered", source: channel.source, event: { type: "channel.recovered", timestamp, data: { channel: link, lastReadAt: channel.lastReadAt } } });
  }
  // Nights reported already are left out here; the store still keeps each once-only against another instance.
  const long = exposedTooLong(channel, now).filter((n) => !reportedNights.includes(n.date));
  if (long.length > 0) {
    notices.push({
      kind: "exposed",
      source: channel.source,
      nights: long.map((n) => n.date),
      event: (dates) => ({
        type: "channel.exposed",
        timestamp,
        data: {
          channel: link,
          lastReadAt: channel.lastReadAt!,
          usualIntervalSeconds: channel.usualIntervalSeconds,
          nights: long.filter((n) => dates.includes(n.date)),
        },
      }),
    });
  }
  return notices;
}

// A night is exposed since its reservation was stored; it is news once that lasts twice the usual interval, at least 6 h.
function exposedTooLong(channel: Channel, now: number): Channel["exposedNights"] {
  const limit = Math.max(2 * (channel.usualIntervalSeconds ?? 0) * 1000, MIN_EXPOSED_MS);
  return channel.exposedNights.filter((n) => now - Date.parse(n.since) > limit);
}
