// What the store keeps of each channel link's reads (CONTRACT §17): the outbound URL with `exclude=S` is S's link.
import type { ServedNights } from "../engine/echoes.js";
import type { CalendarSource, WebhookEvent } from "../types.js";

/**
 * What the channel check found of one link, to report once (CONTRACT §17): the store keeps the once-only
 * state and writes the event to the outbox in the same transaction, so several instances report it once.
 */
export type ChannelNotice =
  /** A stale or never-read streak: reported unless the current streak already was. */
  | { kind: "stale"; source: CalendarSource; event: WebhookEvent }
  /** A read after a reported streak: ends it. */
  | { kind: "recovered"; source: CalendarSource; event: WebhookEvent }
  /** Nights exposed too long: each night reported once; `event` is built from the nights not reported before. */
  | { kind: "exposed"; source: CalendarSource; nights: string[]; event: (nights: string[]) => WebhookEvent };

/** One link's stored state and its read times since the asked moment. */
export interface ChannelLinkRow {
  source: CalendarSource;
  /** ISO time of the first read, null while it has never been read. */
  firstReadAt: string | null;
  lastReadAt: string | null;
  /** The last read's `User-Agent`, at most 200 characters. */
  userAgent: string | null;
  /** ISO time the current stale streak was reported, null outside one. */
  staleNotifiedAt: string | null;
  /** Reads between the asked moments. */
  reads: number;
  /** The latest read times between the asked moments (at most `READ_TIMES_FOR_INTERVAL`), oldest first. */
  readTimes: string[];
}

/**
 * Read times enough for a link's usual interval (the median gap): a channel on schedule reads 12–84 times a
 * week, and a client polling every few seconds would otherwise make every channels answer read thousands.
 */
export const READ_TIMES_FOR_INTERVAL = 100;

/** An active reservation of a property as exposed nights name it: what took the night, and since when. */
export interface ChannelReservation {
  id: string;
  source: string;
  arrival: string;
  departure: string;
  kind: "booking" | "block";
  status: "active" | "cancelled";
  echoOf: string | null;
  /** When calsync first stored it. */
  createdAt: string;
}

/** What a property's channel answers are made of (CONTRACT §17), as the store reads it. */
export interface ChannelInputs {
  /** Its channel calendars (never direct ones): the source and when each was added. */
  calendars: Array<{ source: CalendarSource; createdAt: string }>;
  /** The link state of its sources that have a read recorded or a report made, with their reads in the asked window. */
  links: ChannelLinkRow[];
  /** Its active reservations of every calendar, with their first-stored times. */
  reservations: ChannelReservation[];
  /**
   * What each link's last read served: the newest fetch log record of `exclude` = exactly S, per source S
   * read. Only those: the whole log (five records per URL, each with a year of nights) made a page of
   * properties tens of MiB.
   */
  lastServed: Array<{ source: CalendarSource; nights: ServedNights[] }>;
  /** The exposed nights already reported (`channel.exposed`), by source. */
  reportedNights: Array<{ source: CalendarSource; night: string }>;
}

/** The store's queries of channel links. */
export interface ChannelQueries {
  /**
   * What the channel answers of each of `propertyIds` need, with reads from `since` to `until`; a property
   * without rows gets empty lists. The channel check reads a page of properties at once: a few statements
   * per page, where four per property made 100,000 calendars 400,000 round trips a pass.
   */
  channelInputs(propertyIds: readonly string[], since: Date, until: Date): Promise<Map<string, ChannelInputs>>;
  /** Reports `notices` of a property once each (see `ChannelNotice`) through the outbox, at `at`; the number of events written. */
  recordChannelNotices(input: { ownerId: string; propertyId: string; notices: ChannelNotice[]; at: Date; forgetBefore: string }): Promise<number>;
}

/** Empty inputs for every id: the start of a page's answer. */
export function emptyChannelInputs(propertyIds: readonly string[]): Map<string, ChannelInputs> {
  return new Map(propertyIds.map((id) => [id, { calendars: [], links: [], reservations: [], lastServed: [], reportedNights: [] }]));
}

/** Longest `User-Agent` kept (CONTRACT §17). */
export const USER_AGENT_MAX = 200;

/** Read times are kept this long: the usual interval and reads7d look back 7 days. */
export const CHANNEL_READS_KEEP_MS = 7 * 86_400_000;

/** Each process prunes a link's old read times on every this many reads it records (reads7d and the median look back 7 days anyway). */
export const PRUNE_EVERY_READS = 50;

/** The source a read of `exclude` counts for: exactly one excluded source, else none (CONTRACT §17). */
export function readSource(exclude: readonly CalendarSource[]): CalendarSource | null {
  return exclude.length === 1 ? exclude[0]! : null;
}
