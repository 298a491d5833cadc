// Records of webhook endpoints and their deliveries (CONTRACT §11), as the store hands them to the doors.
import type { WebhookEventType } from "../types.js";

/** An owner's webhook endpoint (CONTRACT §11). `secret` signs deliveries: show it once, when it is made. */
export interface WebhookEndpoint {
  id: string;
  ownerId: string;
  url: string;
  /** The event types it receives; `["*"]` for every type, those of later versions included. */
  events: WebhookSubscription[];
  /** `whsec_` + base64 of the signing key. */
  secret: string;
  createdAt: string;
}

/** An event type an endpoint subscribes to, or `*` for all. */
export type WebhookSubscription = WebhookEventType | "*";

/** `pending` until a 2xx answer (`delivered`) or the last retry (`failed`). */
export type WebhookDeliveryStatus = "pending" | "delivered" | "failed";

/** One event to one endpoint, as `calsync webhook deliveries` lists it. */
export interface WebhookDelivery {
  /** The event's id (`msg_…`), sent as `webhook-id` on every attempt. */
  eventId: string;
  endpointId: string;
  ownerId: string;
  type: WebhookEventType;
  status: WebhookDeliveryStatus;
  attempts: number;
  createdAt: string;
  lastAttemptAt: string | null;
  /** When the next attempt is due; null once delivered or failed. */
  nextAttemptAt: string | null;
  /** HTTP status of the last attempt; null when it got no answer. */
  lastStatus: number | null;
  /** Why the last attempt failed; null after a success. */
  lastError: string | null;
}

/** A delivery claimed by one worker: everything it needs to send the attempt. */
export interface ClaimedWebhookDelivery {
  eventId: string;
  endpointId: string;
  url: string;
  secret: string;
  /** The event's JSON, sent byte for byte on every attempt. */
  payload: string;
  /** Attempts made before this one. */
  attempts: number;
}

/** What `claimWebhookDeliveries` takes. */
export interface WebhookClaim {
  /** Who claims (an id per worker); only it may finish the deliveries. */
  worker: string;
  now: Date;
  /** The claim holds until then; after it, another worker may take the delivery (its holder died). */
  until: Date;
  /** Deliveries to claim at most, never two of one endpoint. */
  limit: number;
  /** Endpoints the worker is already sending to: none of theirs is claimed. */
  busyEndpoints?: readonly string[];
}

/** An attempt cut short by its worker stopping, for `releaseWebhookDelivery`. */
export interface InterruptedWebhookAttempt {
  eventId: string;
  endpointId: string;
  worker: string;
  at: Date;
  /** Why it ended early. */
  error: string;
}

/** How an attempt ended, for `finishWebhookDelivery`. */
export interface WebhookAttempt {
  eventId: string;
  endpointId: string;
  worker: string;
  at: Date;
  delivered: boolean;
  /** HTTP status answered, null for no answer. */
  status: number | null;
  /** Why it failed; null when delivered. */
  error: string | null;
  /** When to try again; null after a success or the last attempt (the delivery then fails). */
  nextAttemptAt: Date | null;
}
