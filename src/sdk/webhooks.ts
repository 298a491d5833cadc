// verifyWebhook(): checks a delivery's Standard Webhooks signature and age, then returns the typed event.
// The signature is computed by the `standardwebhooks` reference library (pure JavaScript, synchronous),
// so this runs in browsers, Deno, Bun, edge runtimes and Node alike, and returns the event at once.
import { Webhook } from "standardwebhooks";
import type { WebhookEvent } from "../types.js";
import { CalsyncError } from "./errors.js";

/** The delivery is not a calsync event signed with this secret, or it is too old (or too new) to trust. */
export class WebhookVerificationError extends CalsyncError {
  override name = "WebhookVerificationError";
}

/** A request's headers: a `Headers` object, or a plain object such as Node's `req.headers`. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

/** Options of `verifyWebhook`. */
export interface VerifyWebhookOptions {
  /** Largest difference between `webhook-timestamp` and now, in seconds. @default 300 */
  toleranceSeconds?: number;
  /** Clock, for tests. @default () => new Date() */
  now?: () => Date;
}

const PREFIX = "whsec_";

/**
 * Verifies a webhook delivery and returns its event. `payload` is the raw request body, exactly as
 * received (parse it only afterwards: re-serialised JSON no longer matches the signature); `secret` is the
 * endpoint's `whsec_…`. Throws `WebhookVerificationError` when a header is missing, no `v1` signature
 * matches, or `webhook-timestamp` is more than 5 minutes away from now.
 */
export function verifyWebhook(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header");
  }
  const seconds = /^\d{1,15}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  if (Number.isNaN(seconds)) throw new WebhookVerificationError("webhook-timestamp is not a Unix time in seconds");
  const now = (options.now?.() ?? new Date()).getTime() / 1000;
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - seconds) > tolerance) {
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s ${seconds < now ? "old" : "in the future"}`);
  }

  const body = typeof payload === "string" ? payload : new TextDecoder().decode(payload);
  const expected = new TextEncoder().encode(signer(secret).sign(id, new Date(seconds * 1000), body).slice("v1,".length));
  for (const entry of signatures.split(" ")) {
    const [version, value] = entry.split(",", 2);
    if (version === "v1" && value && constantTimeEqual(new TextEncoder().encode(value), expected)) return parse(body);
  }
  throw new WebhookVerificationError("no webhook-signature matches this payload and secret");
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | readonly string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return typeof value === "string" ? value : value?.join(" ");
}

function signer(secret: string): Webhook {
  const key = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  try {
    if (key === "" || atob(key).length === 0) throw new Error("empty");
    return new Webhook(key);
  } catch {
    throw new WebhookVerificationError("the secret is not a whsec_… signing secret");
  }
}

// Compares every byte whatever the first difference, so the time taken tells nothing about the expected value.
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

function parse(body: string): WebhookEvent {
  try {
    return JSON.parse(body) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("the signed payload is not JSON");
  }
}
