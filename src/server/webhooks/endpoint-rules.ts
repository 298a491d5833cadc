// What makes a webhook endpoint acceptable (CONTRACT §11, §5), shared by `calsync webhook add` and the dashboard.
import { randomBytes } from "node:crypto";
import { ipLiteralOf, isBlockedAddress } from "../../engine/network-guard.js";
import type { WebhookSubscription } from "../../store/types.js";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../../types.js";

const MAX_URL_LENGTH = 2048;

/** A new signing secret: `whsec_` + base64 of 24 random bytes (192 bits), the form Standard Webhooks libraries read. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/** Why a webhook URL is refused; `blocked_address` is the private-network guard (CONTRACT §5). */
export type WebhookUrlCheck = { ok: true; url: string } | { ok: false; code: "bad_url" | "blocked_address"; message: string };

/**
 * Checks a webhook URL before it is stored: http(s), no credentials, and a host that is not a loopback,
 * private or link-local address literal unless `allowPrivateNetworks`. Names are resolved (and checked)
 * on every delivery instead, since what a name points at can change.
 */
export function checkWebhookUrl(raw: string, allowPrivateNetworks: boolean): WebhookUrlCheck {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, code: "bad_url", message: "the webhook URL is not a valid URL (expected https://…)" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { ok: false, code: "bad_url", message: `the webhook URL must be an https:// (or http://) address, not ${url.protocol}//` };
  }
  if (url.username || url.password) {
    return { ok: false, code: "bad_url", message: "the webhook URL must not hold a user name or password; check the signature instead" };
  }
  if (text.length > MAX_URL_LENGTH) return { ok: false, code: "bad_url", message: `the webhook URL is longer than ${MAX_URL_LENGTH} characters` };
  const literal = ipLiteralOf(url.hostname);
  if (literal && !allowPrivateNetworks && isBlockedAddress(literal)) {
    return {
      ok: false,
      code: "blocked_address",
      message: `webhook address ${literal} is private or local; refused (allow with --allow-private-networks)`,
    };
  }
  return { ok: true, url: url.href };
}

/** Reads a list of event types (`sync.completed,booking.conflict`); empty or `*` means every type. */
export function parseWebhookEvents(items: readonly string[]): { ok: true; events: WebhookSubscription[] } | { ok: false; message: string } {
  const names = [...new Set(items.flatMap((item) => item.split(",")).map((name) => name.trim()).filter(Boolean))];
  if (names.length === 0 || names.includes("*")) return { ok: true, events: ["*"] };
  const unknown = names.filter((name) => !WEBHOOK_EVENT_TYPES.includes(name as WebhookEventType));
  if (unknown.length > 0) {
    return { ok: false, message: `unknown event type ${unknown.map((name) => JSON.stringify(name)).join(", ")}: use ${WEBHOOK_EVENT_TYPES.join(", ")} or *` };
  }
  return { ok: true, events: WEBHOOK_EVENT_TYPES.filter((type) => names.includes(type)) };
}
