// What each channel has seen (CONTRACT §17), read for one property: every door (API, CLI, dashboard, the
// scheduler's check) calls `channelsOf` over the same store.
import { CHANNEL_STATUSES, type Channel, type ChannelStatus } from "../channel-types.js";
import { CHANNEL_WINDOW_MS, channelView, DEFAULT_CHANNEL_STALE_AFTER_MS, type ChannelReservationInput } from "../engine/channel-status.js";
import type { ServedNights } from "../engine/echoes.js";
import { todayAt } from "../engine/nights.js";
import { everyPropertyPage } from "../store/every-property.js";
import type { ChannelInputs } from "../store/channel-types.js";
import type { Property as StoredProperty, Store } from "../store/types.js";
import type { CalendarSource } from "../types.js";
import { failure, type ResourceResult } from "./answers.js";

/** What `channelsOf` needs beside the store. */
export interface ChannelsInput {
  /** The server's origin, for each link's URL. */
  feedBase: string;
  now: Date;
  /** `serve --channel-stale-after`. @default 24 h */
  staleAfterMs?: number;
}

/** `GET /api/v1/properties/{id}/channels`: one entry per source of the property's channel calendars (404 for another owner's property). */
export async function propertyChannels(store: Store, input: ChannelsInput & { ownerId: string; propertyId: string }): Promise<ResourceResult<{ data: Channel[] }>> {
  const property = await store.getProperty(input.propertyId);
  if (!property || property.ownerId !== input.ownerId) return failure(404, "not_found", "no such property");
  return { ok: true, value: { data: await channelsOf(store, property, input) } };
}

/** The channel links of a property, by source; none without channel calendars. */
export async function channelsOf(store: Store, property: StoredProperty, input: ChannelsInput): Promise<Channel[]> {
  return (await channelStates(store, property, input)).map((state) => state.channel);
}

/** A link as the channel check needs it: its answer, when its calendar was added, its reported streak and nights. */
export interface ChannelState {
  channel: Channel;
  addedAt: string;
  staleNotifiedAt: string | null;
  /** Nights already reported exposed (`channel.exposed`), pruned a day after they passed. */
  reportedNights: string[];
}

/** `channelsOf` with what the channel check needs beside each answer. */
export async function channelStates(store: Store, property: StoredProperty, input: ChannelsInput): Promise<ChannelState[]> {
  return (await pageChannelStates(store, [property], input)).get(property.id)!;
}

/** `channelStates` of a page of properties, read together (`Store.channelInputs`). */
export async function pageChannelStates(store: Store, properties: readonly StoredProperty[], input: ChannelsInput): Promise<Map<string, ChannelState[]>> {
  const now = input.now;
  const inputs = await store.channelInputs(properties.map((p) => p.id), new Date(now.getTime() - CHANNEL_WINDOW_MS), now);
  return new Map(properties.map((property) => [property.id, statesOf(property, inputs.get(property.id)!, input)]));
}

function statesOf(property: StoredProperty, { calendars, links, reservations, lastServed: served, reportedNights }: ChannelInputs, input: ChannelsInput): ChannelState[] {
  const now = input.now;
  // Reading never makes a feed token (CONTRACT §14): a property whose feed is off has links without a URL.
  const token = property.feedToken;
  const addedAt = new Map<CalendarSource, string>();
  for (const c of calendars) {
    const before = addedAt.get(c.source);
    if (before === undefined || c.createdAt < before) addedAt.set(c.source, c.createdAt);
  }
  const lastServed = new Map<CalendarSource, ServedNights[]>(served.map((s) => [s.source, s.nights]));
  const base = `${input.feedBase.replace(/\/+$/, "")}/ical/${token}.ics`;
  const context = {
    reservations: reservations as ChannelReservationInput[],
    today: todayAt(now, property.timeZone),
    now,
    staleAfterMs: input.staleAfterMs ?? DEFAULT_CHANNEL_STALE_AFTER_MS,
  };
  return [...addedAt.keys()].sort().map((source) => {
    const link = links.find((l) => l.source === source);
    const channel = channelView(
      {
        source,
        url: token ? `${base}?exclude=${source}` : null,
        addedAt: addedAt.get(source)!,
        firstReadAt: link?.firstReadAt ?? null,
        lastReadAt: link?.lastReadAt ?? null,
        userAgent: link?.userAgent ?? null,
        readTimes: link?.readTimes ?? [],
        readCount: link?.reads ?? 0,
        lastServed: lastServed.get(source) ?? null,
      },
      context,
    );
    const reported = reportedNights.filter((n) => n.source === source).map((n) => n.night);
    return { channel, addedAt: addedAt.get(source)!, staleNotifiedAt: link?.staleNotifiedAt ?? null, reportedNights: reported };
  });
}

/** Every channel link counted by status, with each status's oldest last read: what the metrics show. */
export interface ChannelLinkSummary {
  count: Record<ChannelStatus, number>;
  /** ISO time of the oldest last read among the links of each status; null when none was read. */
  oldestReadAt: Record<ChannelStatus, string | null>;
}

/** `ChannelLinkSummary` of every property, a page at a time: only the totals are kept, never the links. */
export async function summarizeChannelLinks(store: Store, input: Omit<ChannelsInput, "feedBase">): Promise<ChannelLinkSummary> {
  const byStatus = <T>(value: T) => Object.fromEntries(CHANNEL_STATUSES.map((status) => [status, value])) as Record<ChannelStatus, T>;
  const summary: ChannelLinkSummary = { count: byStatus(0), oldestReadAt: byStatus<string | null>(null) };
  for await (const page of everyPropertyPage(store)) {
    for (const states of (await pageChannelStates(store, page, { ...input, feedBase: "" })).values()) {
      for (const { channel } of states) {
        summary.count[channel.status]++;
        const oldest = summary.oldestReadAt[channel.status];
        if (channel.lastReadAt !== null && (oldest === null || Date.parse(channel.lastReadAt) < Date.parse(oldest))) {
          summary.oldestReadAt[channel.status] = channel.lastReadAt;
        }
      }
    }
  }
  return summary;
}
