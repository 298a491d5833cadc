// The webhook delivery worker (CONTRACT §11): the shared outbox loop (../outbox/pool.ts) over the store's
// webhook deliveries, sent a few at a time (never two to one endpoint at once). `calsync serve` keeps one
// running; `calsync webhook deliver` drains what is due once. It never calls the sync engine.
import type { ClaimedWebhookDelivery, Store } from "../../store/types.js";
import {
  drainOutbox,
  startOutboxWorker,
  type DeliverySummary,
  type OutboxAttempt,
  type OutboxOptions,
  type OutboxQueue,
  type OutboxWorker,
  type OutboxWorkerOptions,
} from "../outbox/pool.js";

export type { DeliverySummary } from "../outbox/pool.js";

/** The store methods delivery needs. */
export type DeliveryStore = Pick<Store, "claimWebhookDeliveries" | "finishWebhookDelivery" | "releaseWebhookDelivery" | "pruneWebhookEvents">;

/** Options of `deliverDueWebhooks` and `startWebhookWorker`. */
export interface WebhookDeliveryOptions extends OutboxOptions {
  store: DeliveryStore;
  /** Let webhook URLs reach loopback and private addresses. @default false */
  allowPrivateNetworks?: boolean;
  /** Called after every attempt, e.g. for the server's log. */
  onAttempt?: (attempt: DeliveryAttempt) => void;
}

/** Options of `startWebhookWorker`. */
export interface WebhookWorkerOptions extends WebhookDeliveryOptions, Omit<OutboxWorkerOptions, keyof OutboxOptions> {}

/** One attempt as `onAttempt` reports it. */
export interface DeliveryAttempt {
  eventId: string;
  endpointId: string;
  /** 1 for the first attempt. */
  attempt: number;
  delivered: boolean;
  /** Cut short by `stop()`: it does not count, and the delivery is made again (with this attempt's number). */
  interrupted: boolean;
  status: number | null;
  error: string | null;
  /** When it is tried again (for an interrupted attempt: it stays due); null once delivered or failed for good. */
  nextAttemptAt: Date | null;
}

/** A running worker. */
export type WebhookWorker = OutboxWorker;

/** The webhook outbox as the shared loop drives it: an endpoint is a lane. */
function webhookQueue(options: WebhookDeliveryOptions): OutboxQueue<ClaimedWebhookDelivery> {
  const { store } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const allowPrivateNetworks = options.allowPrivateNetworks ?? false;
  return {
    claim: ({ worker, now, until, limit, busyLanes }) => store.claimWebhookDeliveries({ worker, now, until, limit, busyEndpoints: busyLanes }),
    laneOf: (delivery) => delivery.endpointId,
    attemptsOf: (delivery) => delivery.attempts,
    // The sender (undici's whole package, the Standard Webhooks library) loads with the first delivery.
    send: async (delivery, { now, signal }) =>
      (await import("./send.js")).sendWebhook(delivery, { timeoutMs, allowPrivateNetworks, now, signal }),
    finish: ({ eventId, endpointId }, outcome) => store.finishWebhookDelivery({ eventId, endpointId, ...outcome }),
    release: ({ eventId, endpointId }, outcome) => store.releaseWebhookDelivery({ eventId, endpointId, ...outcome }),
    prune: (before) => store.pruneWebhookEvents(before),
  };
}

function reporter(options: WebhookDeliveryOptions): (attempt: OutboxAttempt<ClaimedWebhookDelivery>) => void {
  return ({ item, ...attempt }) => options.onAttempt?.({ eventId: item.eventId, endpointId: item.endpointId, ...attempt });
}

/** Sends every delivery that is due now and resolves once each has been attempted (for cron: `calsync webhook deliver`). */
export function deliverDueWebhooks(options: WebhookDeliveryOptions): Promise<DeliverySummary> {
  return drainOutbox(webhookQueue(options), options, reporter(options));
}

/** Starts a worker that looks for due deliveries every `pollMs` and whenever `wake()` is called. */
export function startWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  return startOutboxWorker(webhookQueue(options), options, reporter(options));
}
