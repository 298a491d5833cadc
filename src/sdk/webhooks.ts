// verifyWebhook(): checks a delivery's Standard Webhooks signature and age, then returns the typed event.
// Web Crypto does the HMAC and its constant-time comparison, so this runs in browsers, Deno, Bun, edge
// runtimes and Node ≥ 20 alike, and the SDK stays free of packages (test/sdk-browser-safe.test.ts).
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
 * Verifies a webhook delivery and resolves to its event. `payload` is the raw request body, exactly as
 * received (parse it only afterwards: re-serialised JSON no longer matches the signature); `secret` is the
 * endpoint's `whsec_…`. Rejects with `WebhookVerificationError` when a header is missing, no `v1`
 * signature matches, or `webhook-timestamp` is more than 5 minutes away from now.
 */
export async function verifyWebhook(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
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

  const body = typeof payload === "string" ? new TextEncoder().encode(payload) : payload;
  const signed = concat(new TextEncoder().encode(`${id}.${timestamp}.`), body);
  const key = await crypto.subtle.importKey("raw", keyBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  for (const entry of signatures.split(" ")) {
    const [version, value] = entry.split(",", 2);
    const signature = version === "v1" && value ? decodeBase64(value) : undefined;
    // verify() compares in constant time, so the time taken tells an attacker nothing about the expected value.
    if (signature && (await crypto.subtle.verify("HMAC", key, signature, signed))) return parse(body);
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

function keyBytes(secret: string): Uint8Array<ArrayBuffer> {
  const bytes = decodeBase64(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret);
  if (!bytes || bytes.length === 0) throw new WebhookVerificationError("the secret is not a whsec_… signing secret");
  return bytes;
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function parse(body: Uint8Array): WebhookEvent {
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("the signed payload is not JSON");
  }
}
