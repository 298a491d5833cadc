// Webhook endpoints and deliveries (CONTRACT §11): administration, and the claims a delivery worker
// takes so that each delivery is attempted by one worker at a time. Events are written by outbox.ts.
import type Database from "better-sqlite3";
import type { WebhookEventType } from "../../types.js";
import { newId } from "../../ids.js";
import type { ClaimedWebhookDelivery, Store, WebhookDelivery, WebhookDeliveryStatus, WebhookEndpoint, WebhookSubscription } from "../types.js";

export type WebhookQueries = Pick<Store,
  | "createWebhookEndpoint" | "listWebhookEndpoints" | "getWebhookEndpoint" | "removeWebhookEndpoint" | "listWebhookDeliveries"
  | "claimWebhookDeliveries" | "finishWebhookDelivery" | "releaseWebhookDelivery" | "countPendingWebhookDeliveries" | "pruneWebhookEvents">;

export interface EndpointRow { id: string; owner_id: string; url: string; events: string; secret: string; created_at: string }
export interface DeliveryRow {
  event_id: string; endpoint_id: string; owner_id: string; type: string; status: string; attempts: number; created_at: string;
  last_attempt_at: string | null; next_attempt_at: string | null; last_status: number | null; last_error: string | null;
}
/** A claimed delivery row, as both stores read it. */
export interface ClaimRow { event_id: string; endpoint_id: string; url: string; secret: string; payload: string; attempts: number }

/** Prepares the webhook statements of one database. */
export function webhookQueries(db: Database.Database): WebhookQueries {
  const insertEndpoint = db.prepare<[string, string, string, string, string, string]>(
    "INSERT INTO webhook_endpoints (id, owner_id, url, events, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const endpoints = db.prepare<[string | null, string | null], EndpointRow>(
    "SELECT * FROM webhook_endpoints WHERE (? IS NULL OR owner_id = ?) ORDER BY rowid",
  );
  const endpoint = db.prepare<[string], EndpointRow>("SELECT * FROM webhook_endpoints WHERE id = ?");
  const removeEndpoint = db.prepare<[string]>("DELETE FROM webhook_endpoints WHERE id = ?");
  const deliveries = db.prepare<[string | null, string | null, string | null, string | null, number], DeliveryRow>(
    `SELECT d.*, ev.owner_id, ev.type FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
     WHERE (? IS NULL OR ev.owner_id = ?) AND (? IS NULL OR d.endpoint_id = ?)
     ORDER BY ev.rowid DESC, d.endpoint_id LIMIT ?`,
  );
  // The oldest due delivery of each endpoint that no live claim holds; a claim past its time belonged to a worker that died.
  // An endpoint with an attempt in flight (any worker's) gets nothing more until it ends.
  const due = db.prepare<[string, string, string, string, number], ClaimRow>(
    `SELECT event_id, endpoint_id, url, secret, payload, attempts FROM (
       SELECT d.event_id, d.endpoint_id, e.url, e.secret, ev.payload, d.attempts, d.next_attempt_at,
         ROW_NUMBER() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, ev.rowid) AS n
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN webhook_events ev ON ev.id = d.event_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?)
         AND d.endpoint_id NOT IN (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' AND claimed_until > ?)
         AND d.endpoint_id NOT IN (SELECT value FROM json_each(?)))
     WHERE n = 1 ORDER BY next_attempt_at LIMIT ?`,
  );
  const claim = db.prepare<[string, string, string, string]>(
    "UPDATE webhook_deliveries SET claimed_by = ?, claimed_until = ? WHERE event_id = ? AND endpoint_id = ?",
  );
  const finish = db.prepare<[string, string, string | null, string | null, number | null, string, string, string]>(
    `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, last_attempt_at = ?, next_attempt_at = ?, last_error = ?,
     last_status = ?, claimed_by = NULL, claimed_until = NULL WHERE event_id = ? AND endpoint_id = ? AND claimed_by = ? AND status = 'pending'`,
  );
  // An interrupted attempt keeps `attempts` and `next_attempt_at` as they were: it is made again, as if never begun.
  const release = db.prepare<[string, string, string, string, string]>(
    `UPDATE webhook_deliveries SET last_attempt_at = ?, last_error = ?, last_status = NULL, claimed_by = NULL, claimed_until = NULL
     WHERE event_id = ? AND endpoint_id = ? AND claimed_by = ? AND status = 'pending'`,
  );
  const pending = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'");
  const prune = db.prepare<[string]>(
    `DELETE FROM webhook_events WHERE created_at < ?
     AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id AND d.status = 'pending')`,
  );

  // IMMEDIATE: the write lock is taken before reading, so two workers never both see a delivery as free.
  const claimDue = db.transaction((worker: string, now: string, until: string, busy: readonly string[], limit: number) => {
    const rows = due.all(now, now, now, JSON.stringify(busy), limit);
    for (const row of rows) claim.run(worker, until, row.event_id, row.endpoint_id);
    return rows;
  });

  return {
    async createWebhookEndpoint({ ownerId, url, events, secret }) {
      const row: EndpointRow = { id: newId("whk"), owner_id: ownerId, url, events: JSON.stringify(events), secret, created_at: new Date().toISOString() };
      insertEndpoint.run(row.id, row.owner_id, row.url, row.events, row.secret, row.created_at);
      return toEndpoint(row);
    },
    async listWebhookEndpoints(ownerId) {
      return endpoints.all(ownerId ?? null, ownerId ?? null).map(toEndpoint);
    },
    async getWebhookEndpoint(id) {
      const row = endpoint.get(id);
      return row && toEndpoint(row);
    },
    async removeWebhookEndpoint(id) {
      return removeEndpoint.run(id).changes > 0;
    },
    async listWebhookDeliveries(filter = {}) {
      const { ownerId = null, endpointId = null, limit = 100 } = filter;
      return deliveries.all(ownerId, ownerId, endpointId, endpointId, limit).map(toDelivery);
    },
    async claimWebhookDeliveries({ worker, now, until, limit, busyEndpoints = [] }) {
      if (limit <= 0) return [];
      const rows = claimDue.immediate(worker, now.toISOString(), until.toISOString(), busyEndpoints, limit);
      return rows.map(toClaimed);
    },
    async finishWebhookDelivery({ eventId, endpointId, worker, at, delivered, status, error, nextAttemptAt }) {
      const { state, next } = finishedState(delivered, nextAttemptAt);
      finish.run(state, at.toISOString(), next, delivered ? null : error, status, eventId, endpointId, worker);
    },
    async releaseWebhookDelivery({ eventId, endpointId, worker, at, error }) {
      release.run(at.toISOString(), error, eventId, endpointId, worker);
    },
    async countPendingWebhookDeliveries() {
      return pending.get()?.n ?? 0;
    },
    async pruneWebhookEvents(before) {
      return prune.run(before.toISOString()).changes;
    },
  };
}

/** An endpoint row as a record. */
export function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    ownerId: row.owner_id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookSubscription[],
    secret: row.secret,
    createdAt: row.created_at,
  };
}

/** A delivery row (with its event's owner and type) as a record. */
export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    ownerId: row.owner_id,
    type: row.type as WebhookEventType,
    status: row.status as WebhookDeliveryStatus,
    attempts: row.attempts,
    createdAt: row.created_at,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.next_attempt_at,
    lastStatus: row.last_status,
    lastError: row.last_error,
  };
}

/** A claimed delivery row as what the worker sends. */
export function toClaimed(row: ClaimRow): ClaimedWebhookDelivery {
  return {
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    url: row.url,
    secret: row.secret,
    payload: row.payload,
    attempts: row.attempts,
  };
}

/** A finished attempt's state, and when the next is due (only while pending). */
export function finishedState(delivered: boolean, nextAttemptAt: Date | null | undefined): { state: WebhookDeliveryStatus; next: string | null } {
  const state: WebhookDeliveryStatus = delivered ? "delivered" : nextAttemptAt ? "pending" : "failed";
  return { state, next: state === "pending" ? nextAttemptAt!.toISOString() : null };
}
