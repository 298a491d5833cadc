// The outbox (CONTRACT §11) on PostgreSQL: webhook events written inside the caller's transaction, with one
// pending delivery per endpoint subscribed to their type. An event nobody subscribes to is not kept.
import type { WebhookEvent } from "../../types.js";
import { newId } from "../../ids.js";
import type { Sql } from "./pool.js";
import type { WebhookSubscription } from "../types.js";
import { addMailsForEvents } from "./mail.js";

// Each list travels as one array: one statement for the events, one for their deliveries, in creation order.
const INSERT_EVENTS = `
  INSERT INTO webhook_events (id, owner_id, type, payload, created_at)
  SELECT t.id, $4, t.type, t.payload::json, $5 FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS t(id, type, payload, n)
  ORDER BY t.n`;
const INSERT_DELIVERIES = `
  INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, next_attempt_at, created_at)
  SELECT t.event_id, t.endpoint_id, 'pending', 0, $3, $3 FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(event_id, endpoint_id, n)
  ORDER BY t.n`;

/** Adds `events` of `ownerId` for every endpoint of the owner that subscribes to their type; call it inside the change's transaction. */
export async function addToOutbox(
  sql: Sql, ownerId: string, events: readonly WebhookEvent[], options?: { bookingChanges?: boolean },
): Promise<void> {
  if (events.length === 0) return;
  // The owner's mails (CONTRACT §16) ride on the same events, in the same transaction.
  await addMailsForEvents(sql, ownerId, events, options);
  const subscribed = (await sql.query<{ id: string; events: string }>(
    "SELECT id, events FROM webhook_endpoints WHERE owner_id = $1 ORDER BY seq",
    [ownerId],
  )).map((row) => ({ id: row.id, events: JSON.parse(row.events) as WebhookSubscription[] }));
  if (subscribed.length === 0) return;
  const rows = { ids: [] as string[], types: [] as string[], payloads: [] as string[] };
  const deliveries = { events: [] as string[], endpoints: [] as string[] };
  for (const event of events) {
    const receivers = subscribed.filter((endpoint) => endpoint.events.includes("*") || endpoint.events.includes(event.type));
    if (receivers.length === 0) continue;
    const id = newId("msg");
    rows.ids.push(id);
    rows.types.push(event.type);
    rows.payloads.push(JSON.stringify(event));
    for (const endpoint of receivers) {
      deliveries.events.push(id);
      deliveries.endpoints.push(endpoint.id);
    }
  }
  if (rows.ids.length === 0) return;
  // The commit's clock, not the sync's: delivery is due from the moment the event exists.
  const at = new Date().toISOString();
  await sql.run(INSERT_EVENTS, [rows.ids, rows.types, rows.payloads, ownerId, at]);
  await sql.run(INSERT_DELIVERIES, [deliveries.events, deliveries.endpoints, at]);
}
