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

/** Starts the periodic check; `stop()` ends it (a check under way finishes). */
export function startChannelWatch(options: ChannelWatchOptions): { stop(): Promise<void>; check(): Promise<number> } {
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_CHANNEL_STALE_AFTER_MS;
  const everyMs = options.everyMs ?? Math.min(Math.max(Math.floor(staleAfterMs / 4), 100), 60_000);
  let running: Promise<number> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const check = () =>
    (running ??= checkChannels(options.store, { staleAfterMs, now: (options.now ?? (() => new Date()))() }).finally(() => (running = undefined)));
  const wait = (ms: number) => {
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  const tick = () => {
    const started = performance.now();
    void check()
      .then(
        (count) => count > 0 && options.onReported?.(count),
        (error: unknown) => options.onError?.(error),
      )
      .finally(() => stopped || wait(nextCheckAfter(everyMs, performance.now() - started)));
  };
  wait(everyMs);
  return {
    // A check under way finishes before the database may close.
    async stop() {
      stopped = true;
      clearTimeout(timer);
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
