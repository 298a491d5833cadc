// One delivery attempt (CONTRACT §11): the stored JSON POSTed as it is, signed per the Standard Webhooks
// specification by its reference library, through the private-network guard the feeds use (§5).
import { Webhook } from "standardwebhooks";
import { request } from "undici";
import { blocked, networkFailure, timedOut } from "../../engine/fetch-errors.js";
import { agentFor, allowAll } from "../../engine/fetch-feed.js";
import { ipLiteralOf, isBlockedAddress } from "../../engine/network-guard.js";
import { SDK_VERSION } from "../../sdk/version.js";

/** What an attempt sends. */
export interface OutgoingWebhook {
  /** The event's id: `webhook-id`, the same on every attempt, so receivers can drop duplicates. */
  eventId: string;
  url: string;
  secret: string;
  /** The JSON body, byte for byte as stored. */
  payload: string;
}

/** Options of one attempt. */
export interface SendWebhookOptions {
  /** Deadline of the whole attempt (connection, answer and its body), in milliseconds. */
  timeoutMs: number;
  /** Let the URL reach loopback and private addresses. */
  allowPrivateNetworks: boolean;
  /** The attempt's time: `webhook-timestamp`, part of what is signed. */
  now: Date;
  /** Ends the attempt early (the worker is stopping). */
  signal?: AbortSignal;
}

/**
 * How an attempt went: a 2xx answer delivers; anything else is retried later. `interrupted` when `signal`
 * cut it short: it never finished, so it does not count as an attempt.
 */
export type SendResult =
  | { delivered: true; status: number }
  | { delivered: false; status: number | null; error: string; interrupted?: true };

/** Bytes of a receiver's answer read before it is dropped: only the status matters. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Signs and POSTs one event; never throws. */
export async function sendWebhook(webhook: OutgoingWebhook, options: SendWebhookOptions): Promise<SendResult> {
  let url: URL;
  try {
    url = new URL(webhook.url);
  } catch {
    return { delivered: false, status: null, error: "the webhook URL is not a valid URL" };
  }
  const policy = options.allowPrivateNetworks ? allowAll : isBlockedAddress;
  // Node connects to an IP literal without a lookup, so the guard's lookup never sees it: check it here.
  const literal = ipLiteralOf(url.hostname);
  if (literal && policy(literal)) return failed(blocked(url.hostname, literal, "receiver").error.message);

  let signature: string;
  try {
    signature = new Webhook(webhook.secret).sign(webhook.eventId, options.now, webhook.payload);
  } catch {
    return failed("the endpoint's secret is not a whsec_… signing secret");
  }
  const headers = {
    "content-type": "application/json",
    "user-agent": `calsync/${SDK_VERSION}`,
    "webhook-id": webhook.eventId,
    "webhook-timestamp": String(Math.floor(options.now.getTime() / 1000)),
    "webhook-signature": signature,
  };
  const controller = new AbortController();
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    controller.abort();
  }, options.timeoutMs);
  const onStop = () => controller.abort();
  options.signal?.addEventListener("abort", onStop, { once: true });
  try {
    // undici.request never follows redirects: a 3xx is an answer that is not 2xx, so it is retried, and the
    // signed body never travels to an address nobody registered.
    const response = await request(url, {
      method: "POST",
      dispatcher: agentFor(policy),
      headers,
      body: webhook.payload,
      signal: controller.signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    const status = response.statusCode;
    await response.body.dump({ limit: MAX_ANSWER_BYTES }).catch(() => {});
    if (status >= 200 && status < 300) return { delivered: true, status };
    return { delivered: false, status, error: `receiver answered HTTP ${status}` };
  } catch (error) {
    if (late) return failed(timedOut(options.timeoutMs, "receiver").error.message);
    if (controller.signal.aborted) return { ...failed("attempt interrupted: calsync was stopping"), interrupted: true };
    return failed(networkFailure(error, url, "receiver").error.message);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onStop);
  }
}

function failed(error: string): Extract<SendResult, { delivered: false }> {
  return { delivered: false, status: null, error };
}
