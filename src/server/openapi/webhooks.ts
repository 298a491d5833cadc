// The `webhooks` section of the OpenAPI document: one Path Item per event type of CONTRACT §11
// (`sync.completed`, `calendar.failed`, `reservation.created`, …), each a POST whose request body is
// that event's payload. Empty until webhooks exist; their schemas then go to schemas.ts like the others.

/** Webhook events calsync sends, keyed by event type, as OpenAPI 3.1 Path Items. */
export const WEBHOOK_EVENTS: Record<string, object> = {};
