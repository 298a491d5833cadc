// Public surface of `calsync/engine`: the sync engine and its pure building blocks.
export { syncOwner, type FeedFetch, type SyncOwnerOptions, type SyncProgress } from "./sync.js";
export { fetchFeed, type FetchedFeed, type FetchFeedOptions, type FetchFeedResult } from "./fetch-feed.js";
export { createFetchLimiter, DEFAULT_FETCH_LIMITS, type FetchLimiter, type FetchLimiterOptions } from "./fetch-limiter.js";
export { createHostBackoffs, parseRetryAfter, type HostBackoffs } from "./host-backoff.js";
export { WriteFaultError } from "./write-fault.js";
export { parseFeed } from "./parse-feed.js";
export { createParsePool, type ParsePool, type ParsePoolOptions } from "./parse-pool.js";
export type { FeedReading, ReadFeed, ReadFeedTask } from "./feed-reading.js";
export { diffReservations, type DiffResult, type DiffCounts } from "./diff.js";
export { detectSource, classifyKind } from "./channels.js";
export { maskUrl } from "./mask-url.js";
export { normalizeFeedUrl, sameFeedUrl } from "./feed-url.js";
export {
  checkCalendarUrl,
  feedTokenCandidate,
  type CalendarUrlCheck,
  type CalendarUrlVerdict,
  type ExistingCalendar,
  type OutboundFeedMatch,
} from "./calendar-checks.js";
export { previewFeed, type FeedPreview, type FeedPreviewResult, type PreviewFeedOptions } from "./feed-preview.js";
export { explainHtmlAnswer, type HtmlAnswer } from "./html-answer.js";
export { findConflicts, findPropertyConflicts, type ConflictInput, type FindConflictsOptions } from "./conflicts.js";
export {
  echoOf,
  fetchedNights,
  markEchoes,
  ECHO_FETCH_WINDOW_MS,
  type EchoContext,
  type OutboundFetchRecord,
  type ServedNights,
} from "./echoes.js";
export { addDays, datedEvent, stayNights, todayAt, type NightZones } from "./nights.js";
export { canonicalTimeZone } from "./time-zones.js";
export {
  buildOutboundFeed,
  outboundFeedEtag,
  OUTBOUND_PRODUCT_ID,
  OUTBOUND_SUMMARY,
  servedReservations,
  type OutboundFeedInput,
  type OutboundReservation,
} from "./outbound-feed.js";
export type * from "./model.js";
export { FAILING_STREAK, type CalendarStreak, type SyncStore, type SyncRunRecord } from "./store-port.js";
export type * from "../types.js";
