// `calsync serve`: the HTTP API and the owner dashboard over the database (a SQLite file, or PostgreSQL
// shared by several instances) until SIGINT/SIGTERM.
import { Command } from "@commander-js/extra-typings";
import { MAX_INTERVAL_MS } from "../../server/scheduler.js";
import { isValidHost } from "../../server/listen.js";
import { parseRateLimit } from "../../server/rate-limit-policy.js";
import { BEHIND_A_PROXY, checkMailFrom, checkSmtpUrl } from "../../server/mail/config.js";
import type { MailServeSettings } from "../../server/serve.js";
import { UsageError, type CliContext } from "../context.js";
import { feedBaseUrl } from "../base-url.js";
import { parseDuration } from "../duration.js";
import { dbOption, jsonOption, parseCount, parseMilliseconds, privateNetworksAllowed } from "../options.js";
import { writeJson, writeText } from "../output.js";
import { forTerminal } from "../terminal-text.js";
import { keepYoungGenerationSmall } from "../young-generation.js";

/** Builds the `serve` command. */
export function serveCommand(context: CliContext) {
  return new Command("serve")
    .description("Serve the HTTP API (POST /api/v1/calendars/sync) and the owner dashboard (/) over the database (SQLite, or PostgreSQL for several instances)")
    .addOption(dbOption())
    .option("--host <host>", "interface to listen on (default: $HOST, else 127.0.0.1)")
    .option("--port <port>", "port to listen on, 0 for any free one (default: $PORT, else 8787)")
    .option("--sync-every <duration>", "also sync every owner at this interval, e.g. 15m or 1h")
    .option("--allow-private-networks", "let feed and webhook URLs reach loopback and private addresses (or CALSYNC_ALLOW_PRIVATE_NETWORKS=1)")
    .option("--trust-proxy", "behind one reverse proxy: believe its X-Forwarded-Proto/-Host/-For (Secure cookies under HTTPS, real client addresses)")
    .option("--json-logs", "write log lines to stderr as JSON objects")
    .option("--rate-limit <rate>", "sync requests allowed per API token: N/s, N/m or N/h, 0 for no limit (default: 6/m)")
    .option("--api-rate-limit <rate>", "requests to the resource routes (properties, reservations, availability) per API token, apart from sync's: N/s, N/m or N/h, 0 for no limit (default: 120/m)")
    .option("--metrics", "serve Prometheus metrics at GET /metrics")
    .option("--smtp-url <url>", "email owners through this SMTP server: smtp://user:pass@host:587, or smtps://… for implicit TLS (or CALSYNC_SMTP_URL)")
    .option("--mail-from <from>", 'From of those mails, e.g. "calsync <calsync@example.com>" (or CALSYNC_MAIL_FROM)')
    .option("--base-url <url>", "public address links in mails start with (or CALSYNC_BASE_URL; default: the URL serve prints; needed with --trust-proxy and --smtp-url)")
    .option("--parse-timeout <ms>", "stop reading a feed that takes longer than this on its worker thread (parse_error; default 20000)", parseMilliseconds)
    .option("--refresh-timeout <ms>", "longest a direct stay's check waits for the property's channels; slower calendars are checked as last synced (default 8000)", parseMilliseconds)
    .option("--fetch-concurrency <n>", "feeds fetched at once by this process, over all owners (default 16)", parseCount)
    .option("--fetch-per-host <n>", "feeds fetched at once by this process from one host (default 6)", parseCount)
    .option("--owner-fetch-concurrency <n>", "feeds of one owner's sync fetched at once (default 8)", parseCount)
    .option("--owner-fetch-per-host <n>", "feeds of one owner's sync fetched at once from one host (default 2)", parseCount)
    .option("--channel-stale-after <duration>", "a channel link not read for longer than this is stale, e.g. 24h, 90m, 30s (default 24h)")
    .option("--shutdown-grace <duration>", "on SIGTERM/SIGINT, how long running syncs and deliveries may finish before they are cut short (default 30s)")
    .option("--backup-dir <dir>", "back the SQLite database up into this directory at start and every --backup-every")
    .option("--backup-every <duration>", "time between backups, e.g. 6h (default 24h; needs --backup-dir)")
    .option("--backup-keep <n>", "backups kept in --backup-dir, the newest (default 7)", parseCount)
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nPrints its URL on stdout once listening (with --json: {\"url\": …}); logs go to stderr.\n" +
        "SIGINT/SIGTERM stop it gracefully: new requests get 503, running syncs and deliveries finish (up to --shutdown-grace),\n" +
        "then the database is closed and it exits 0; a second signal exits at once. GET /readyz is for orchestrators.\n" +
        "Owners sign in to the dashboard at the printed URL; give them a link with: calsync owner invite --owner O\n" +
        "Webhooks (calsync webhook add) are delivered as syncs write them, retried across restarts.\n" +
        "With --smtp-url and --mail-from, owners get mails (invites, password resets, double bookings, failing calendars),\n" +
        "retried the same way; without them nothing is mailed.\n" +
        "Several instances may share one postgres:// database: one sync per owner at a time across all of them,\n" +
        "--sync-every syncs each owner once per period in total, and rate limits and sign-in throttles are shared.\n" +
        "Examples:\n  calsync serve\n  calsync serve --host 0.0.0.0 --port 8080 --sync-every 15m --json-logs\n" +
        "  calsync serve --rate-limit 30/h --metrics\n  calsync serve --trust-proxy   # behind nginx/Caddy terminating HTTPS\n" +
        "  calsync serve --db postgres://calsync:…@db.example/calsync --sync-every 15m\n" +
        '  calsync serve --smtp-url smtp://calsync:…@mail.example:587 --mail-from "calsync <calsync@example.com>" --base-url https://cal.example.com',
    )
    .action(async (options) => {
      const { env } = context.io;
      const host = options.host ?? (env.HOST || "127.0.0.1");
      if (!isValidHost(host)) throw new UsageError(`invalid host "${host}": give a host name or an IP address`);
      const port = parsePort(options.port ?? env.PORT, options.port === undefined ? "PORT" : "--port");
      const syncEveryMs = options.syncEvery === undefined ? undefined : parseSyncEvery(options.syncEvery);
      const rateLimit = options.rateLimit === undefined ? undefined : parseRateLimitFlag(options.rateLimit);
      const apiRateLimit = options.apiRateLimit === undefined ? undefined : parseRateLimitFlag(options.apiRateLimit, "--api-rate-limit");
      const mail = mailSettings(options, env, options.trustProxy ?? false);
      const channelStaleAfterMs = options.channelStaleAfter === undefined ? undefined : parseDuration(options.channelStaleAfter);
      const backups = backupSettings(options);

      keepYoungGenerationSmall(process.execArgv, env.NODE_OPTIONS);
      const { startServer } = await import("../../server/serve.js");
      const server = await startServer({
        store: await context.store(options.db),
        host,
        port,
        syncEveryMs,
        allowPrivateNetworks: privateNetworksAllowed(options.allowPrivateNetworks, env),
        trustProxy: options.trustProxy ?? false,
        jsonLogs: options.jsonLogs ?? false,
        rateLimit,
        apiRateLimit,
        metrics: options.metrics ?? false,
        parseTimeoutMs: options.parseTimeout,
        refreshTimeoutMs: options.refreshTimeout,
        fetchLimits: {
          concurrency: options.fetchConcurrency,
          perHost: options.fetchPerHost,
          ownerConcurrency: options.ownerFetchConcurrency,
          ownerPerHost: options.ownerFetchPerHost,
        },
        mail,
        channelStaleAfterMs,
        backups,
        shutdownGraceMs: options.shutdownGrace === undefined ? undefined : parseDuration(options.shutdownGrace),
        log: (line) => context.io.stderr.write(`${forTerminal(line)}\n`),
      });
      if (options.json) writeJson(context, { url: server.url });
      else writeText(context, server.url);

      await nextSignal();
      await server.close();
    });
}

// The flag, else its environment variable; a bad value is a usage error naming whichever was used.
function mailSettings(options: { smtpUrl?: string; mailFrom?: string; baseUrl?: string }, env: NodeJS.ProcessEnv, trustProxy: boolean): MailServeSettings | undefined {
  const pick = (flag: string, value: string | undefined, name: string) =>
    value !== undefined ? { source: flag, value } : env[name]?.trim() ? { source: name, value: env[name]!.trim() } : undefined;
  const smtp = pick("--smtp-url", options.smtpUrl, "CALSYNC_SMTP_URL");
  const from = pick("--mail-from", options.mailFrom, "CALSYNC_MAIL_FROM");
  const base = pick("--base-url", options.baseUrl, "CALSYNC_BASE_URL");
  const baseUrl = base && feedBaseUrl(base.value, base.source);
  if (!smtp) return undefined;
  const smtpUrl = checkSmtpUrl(smtp.value);
  // Never echo the value: it holds the SMTP password.
  if (!smtpUrl.ok) throw new UsageError(`${smtp.source} ${smtpUrl.message}`);
  if (!from) throw new UsageError("--mail-from (or CALSYNC_MAIL_FROM) is needed with --smtp-url: the address mails come from");
  const mailFrom = checkMailFrom(from.value);
  if (!mailFrom.ok) throw new UsageError(`${from.source} ${mailFrom.message} (got ${JSON.stringify(from.value)})`);
  if (trustProxy && !baseUrl) {
    throw new UsageError(`--base-url (or CALSYNC_BASE_URL) is needed with --trust-proxy and ${smtp.source}: ${BEHIND_A_PROXY}`);
  }
  return { smtpUrl: smtpUrl.value, from: mailFrom.value, ...(baseUrl ? { baseUrl } : {}) };
}

function backupSettings(options: { backupDir?: string; backupEvery?: string; backupKeep?: number; db?: string }) {
  if (options.backupDir === undefined) {
    if (options.backupEvery !== undefined || options.backupKeep !== undefined) throw new UsageError("--backup-every and --backup-keep need --backup-dir");
    return undefined;
  }
  if (options.db !== undefined && /^postgres(ql)?:\/\//i.test(options.db)) {
    throw new UsageError("--backup-dir backs up a SQLite file; for PostgreSQL use pg_dump (docs/self-hosting.md)");
  }
  const everyMs = options.backupEvery === undefined ? 24 * 3_600_000 : parseDuration(options.backupEvery);
  if (everyMs < 60_000) throw new UsageError(`--backup-every must be at least 1m (got "${options.backupEvery}")`);
  if (everyMs > MAX_INTERVAL_MS) throw new UsageError(`--backup-every must be at most 24d (got "${options.backupEvery}")`);
  return { dir: options.backupDir, everyMs, keep: options.backupKeep ?? 7 };
}

function parsePort(value: string | undefined, source: string): number {
  if (value === undefined || value === "") return 8787;
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65535) {
    throw new UsageError(`${source} must be a whole number from 0 to 65535 (got "${value}")`);
  }
  return port;
}

function parseSyncEvery(value: string): number {
  const ms = parseDuration(value);
  if (ms > MAX_INTERVAL_MS) throw new UsageError(`--sync-every must be at most 24d (got "${value}")`);
  return ms;
}

function parseRateLimitFlag(value: string, flag = "--rate-limit") {
  const parsed = parseRateLimit(value);
  if (!parsed.ok) throw new UsageError(`${flag}: ${parsed.message}`);
  return parsed.policy;
}

// Resolves on the first SIGINT or SIGTERM; a second one gets Node's default (immediate exit).
function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}
