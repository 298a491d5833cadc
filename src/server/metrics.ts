// Prometheus metrics (CONTRACT §12), on a registry of their own per app: two apps in one process
// (tests, embedders) never clash in prom-client's global registry. Label values come from fixed
// sets (source, status, error code, route pattern), never from a token, URL, owner or property name.
import { CHANNEL_STATUSES } from "../channel-types.js";
import type { ChannelLinkSummary } from "../resources/channels.js";
import { nextCheckAfter } from "./channel-watch.js";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { FeedFetch } from "../engine/sync.js";
import type { FinishedRun } from "./single-flight.js";

/** The metrics of one app, and the hooks that feed them. */
export interface ServerMetrics {
  /** This app's registry; register your own metrics here to serve them on `/metrics` too. */
  readonly registry: Registry;
  /** Hand these to `createSyncRunner` so that every run and feed fetch is counted. */
  readonly syncHooks: {
    onRunFinished: (run: FinishedRun) => void;
    onFeedFetched: (fetch: FeedFetch) => void;
  };
  /** Counts one HTTP answer under its route pattern (`/ical/:file`), never the raw path. */
  countRequest(method: string, route: string | undefined, status: number): void;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Options of `createServerMetrics`. */
export interface ServerMetricsOptions {
  /** Reads the webhook deliveries still to be made, at each scrape (`calsync_webhook_outbox_depth`). @default no such gauge */
  outboxDepth?: () => Promise<number>;
  /**
   * Counts every channel link by status, with each status's oldest read (`calsync_channel_links`, CONTRACT §17):
   * at each scrape, or from the last count while that took a second or more and is younger than 49 times that.
   * @default no such gauges
   */
  channelLinks?: () => Promise<ChannelLinkSummary>;
}

/** Creates the metrics of one app, with Node's default process metrics on the same registry. */
export function createServerMetrics(options: ServerMetricsOptions = {}): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const syncs = new Counter({
    name: "calsync_syncs_total",
    help: "Sync runs by what started them and how they ended (ok, some_failed, error); joined requests are one run.",
    labelNames: ["trigger", "outcome"] as const,
    registers,
  });
  const syncSeconds = new Histogram({
    name: "calsync_sync_duration_seconds",
    help: "Duration of whole sync runs of an owner.",
    labelNames: ["trigger"] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120],
    registers,
  });
  const calendars = new Counter({
    name: "calsync_calendar_syncs_total",
    help: "Calendars synchronised, by channel and status (success, failed).",
    labelNames: ["source", "status"] as const,
    registers,
  });
  const failures = new Counter({
    name: "calsync_calendar_failures_total",
    help: "Failed calendars by channel and error code (fetch_failed, timeout, http_error, …).",
    labelNames: ["source", "code"] as const,
    registers,
  });
  // By channel only: a host in a label would name the feeds (and a URL could hold their secret).
  const throttled = new Counter({
    name: "calsync_calendars_throttled_total",
    help: "Calendars not fetched because their feed's host asked calsync to wait (Retry-After on a 429 or 503), by channel.",
    labelNames: ["source"] as const,
    registers,
  });
  const fetchSeconds = new Histogram({
    name: "calsync_feed_fetch_duration_seconds",
    help: "Duration of feed fetches (without the wait for a fetch slot), by channel and outcome (ok, not_modified, error).",
    labelNames: ["source", "outcome"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20],
    registers,
  });
  const requests = new Counter({
    name: "calsync_http_requests_total",
    help: "HTTP answers by method, route pattern and status.",
    labelNames: ["method", "route", "status"] as const,
    registers,
  });
  const { outboxDepth } = options;
  if (outboxDepth) {
    // Asked at scrape time, so every instance on a shared database reports the same, current depth.
    new Gauge({
      name: "calsync_webhook_outbox_depth",
      help: "Webhook deliveries not yet made (pending, retries included); one that keeps growing means a receiver is down.",
      registers,
      async collect() {
        // A database that cannot be read keeps the last depth read: failing here would fail the whole
        // scrape, hiding the 503s and process metrics just when the operator needs them.
        const depth = await outboxDepth().catch(() => undefined);
        if (depth !== undefined) this.set(depth);
      },
    });
  }

  if (options.channelLinks) registerChannelGauges(registers, options.channelLinks);

  return {
    registry,
    syncHooks: {
      onRunFinished({ trigger, durationMs, response }) {
        const outcome = !response ? "error" : response.ok ? "ok" : "some_failed";
        syncs.inc({ trigger, outcome });
        syncSeconds.observe({ trigger }, durationMs / 1000);
        for (const { source, result } of response?.results ?? []) {
          calendars.inc({ source, status: result.status });
          if (result.error) failures.inc({ source, code: result.error.code });
          if (result.error?.code === "throttled") throttled.inc({ source });
        }
      },
      onFeedFetched({ source, outcome, durationMs }) {
        fetchSeconds.observe({ source, outcome }, durationMs / 1000);
      },
    },
    countRequest(method, route, status) {
      requests.inc({ method: METHODS.has(method) ? method : "other", route: route ?? "unmatched", status: String(status) });
    },
  };
}

// Links by status, and per status the seconds since its oldest last read: labels name only the status, never a
// property, URL or token. A database that cannot be read keeps the last values, as the outbox depth does.
function registerChannelGauges(registers: Registry[], read: NonNullable<ServerMetricsOptions["channelLinks"]>): void {
  let last: Promise<ChannelLinkSummary | undefined> | undefined;
  let kept: { summary: ChannelLinkSummary; until: number } | undefined;
  // Both gauges are collected in one scrape: one read of the links serves them. A count reads every property
  // (minutes of database work at 100,000), so a long one serves the scrapes after it as the channel check's
  // share rule spaces checks: a scrape every 15 s would otherwise keep a core busy counting.
  const links = () => {
    if (kept && performance.now() < kept.until) return Promise.resolve(kept.summary);
    const started = performance.now();
    return (last ??= read()
      .then((summary) => {
        kept = { summary, until: performance.now() + nextCheckAfter(0, performance.now() - started) };
        return summary;
      })
      .catch(() => kept?.summary)
      .finally(() => setTimeout(() => (last = undefined), 0)));
  };
  new Gauge({
    name: "calsync_channel_links",
    help: "Channel links (a property's outbound URL with exclude=S) by status: never, stale, behind, current.",
    labelNames: ["status"] as const,
    registers,
    async collect() {
      const summary = await links();
      if (!summary) return;
      for (const status of CHANNEL_STATUSES) this.set({ status }, summary.count[status]);
    },
  });
  new Gauge({
    name: "calsync_channel_oldest_read_seconds",
    help: "Seconds since the oldest last read among the links of each status (0 when none has been read).",
    labelNames: ["status"] as const,
    registers,
    async collect() {
      const summary = await links();
      if (!summary) return;
      const now = Date.now();
      for (const status of CHANNEL_STATUSES) {
        const oldest = summary.oldestReadAt[status];
        this.set({ status }, oldest === null ? 0 : Math.round((now - Date.parse(oldest)) / 1000));
      }
    },
  });
}
