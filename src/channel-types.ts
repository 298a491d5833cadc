// The wire types of "what each channel has seen" (CONTRACT §17), used by server, SDK, CLI and dashboard.
import type { ReservationSource } from "./resource-types.js";
import type { CalendarSource } from "./types.js";

/** A link's status, the first that applies: never read, not read for too long, exposed nights, else current. */
export type ChannelStatus = "never" | "stale" | "behind" | "current";

/** Every status, in the order they are decided. */
export const CHANNEL_STATUSES: readonly ChannelStatus[] = ["never", "stale", "behind", "current"];

/** A night the channel may still sell: taken now, free in the channel's last read. */
export interface ExposedNight {
  /** The night, `YYYY-MM-DD` in the property's zone. */
  date: string;
  /** The reservation that took it. */
  reservationId: string;
  /** Where that reservation came from. */
  source: ReservationSource;
  /** When calsync first stored that reservation (ISO, UTC). */
  since: string;
}

/** What one channel has seen of the property's outbound feed. */
export interface Channel {
  source: CalendarSource;
  /** The link to paste into the channel's import box (the outbound URL with `exclude=source`); null while the feed is switched off. */
  url: string | null;
  status: ChannelStatus;
  lastReadAt: string | null;
  firstReadAt: string | null;
  /** Reads in the last 7 days. */
  reads7d: number;
  /** The median gap between reads over the last 7 days; null below 3 reads. */
  usualIntervalSeconds: number | null;
  /** `lastReadAt` + the usual interval; null without one. */
  expectedBy: string | null;
  /** The last read's `User-Agent` (≤ 200 characters). */
  userAgent: string | null;
  exposedNights: ExposedNight[];
  /** Nights served as taken at the last read that are free now (the channel turns guests away). */
  freedNights: string[];
}

/** `GET /api/v1/properties/{id}/channels`. */
export interface ChannelList {
  data: Channel[];
}
