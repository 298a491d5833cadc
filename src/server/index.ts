// Public surface of `calsync/server`: the h3 app to mount anywhere, the ready server, API tokens, and the
// integrator surface (rate limiters, metrics, the OpenAPI document, webhook delivery).
export { createApp, SYNC_PATH, type AppOptions } from "./app.js";
export { startServer, type ServeOptions, type RunningServer, type WebhookWorkerSettings, type MailServeSettings } from "./serve.js";
export type { AccessLogLine } from "./access-log.js";
export type { SyncRunner } from "./single-flight.js";
export { generateToken, hashToken, checkToken, type GeneratedToken, type TokenCheck } from "./tokens.js";
export {
  DEFAULT_RATE_LIMIT,
  memoryRateLimiter,
  storeRateLimiter,
  tokenRateLimiter,
  type RateLimitDecision,
  type RateLimitPolicy,
  type TokenRateLimiter,
} from "./rate-limit.js";
export { createServerMetrics, type ServerMetrics, type ServerMetricsOptions } from "./metrics.js";
export { openApiDocument } from "./openapi/document.js";
export {
  deliverDueWebhooks,
  startWebhookWorker,
  type DeliveryAttempt,
  type DeliverySummary,
  type WebhookDeliveryOptions,
  type WebhookWorker,
  type WebhookWorkerOptions,
} from "./webhooks/worker.js";
export type { PollHealthReport } from "./outbox/poll-outage.js";
export { generateWebhookSecret } from "./webhooks/endpoint-rules.js";
