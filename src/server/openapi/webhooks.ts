// The `webhooks` section of the OpenAPI document: one Path Item per event type of CONTRACT §11
// (`sync.completed`, `calendar.failed`, `reservation.created`, …), each a POST whose request body is that
// event's payload (schemas in webhook-schemas.ts), signed per the Standard Webhooks specification.
import { WEBHOOK_PAYLOADS } from "./webhook-schemas.js";

const SIGNATURE_HEADERS = [
  {
    name: "webhook-id",
    in: "header",
    required: true,
    description: "The event's id (`msg_…`), the same on every retry: drop a delivery whose id you have already handled.",
    schema: { type: "string" },
  },
  {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    description: "Unix time in seconds of this attempt; refuse one more than 5 minutes from your clock.",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    description:
      "`v1,` + base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body` keyed with the base64-decoded part of the endpoint's " +
      "`whsec_…` secret (space-separated when there are several). `verifyWebhook()` of the SDK checks it.",
    schema: { type: "string" },
  },
];

function pathItem(type: string, name: string, description: string) {
  return {
    post: {
      operationId: `${type.replace(/\.(\w)/g, (_, letter: string) => letter.toUpperCase())}Webhook`,
      summary: `${type}: ${description}`,
      description:
        "Sent to every endpoint of the owner subscribed to this type. Answer 2xx within 10 s; anything else (or no answer) is " +
        "retried with growing waits for more than 24 hours, with the same `webhook-id`.",
      security: [],
      parameters: SIGNATURE_HEADERS,
      requestBody: { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } } },
      responses: { "2XX": { description: "Delivered; the body is ignored." } },
    },
  };
}

/** Webhook events calsync sends, keyed by event type, as OpenAPI 3.1 Path Items. */
export const WEBHOOK_EVENTS: Record<string, object> = Object.fromEntries(
  Object.entries(WEBHOOK_PAYLOADS).map(([type, [name, schema]]) => [type, pathItem(type, name, schema.description)]),
);
