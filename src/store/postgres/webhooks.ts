// Webhook endpoints and deliveries (CONTRACT §11) on PostgreSQL: administration, and the claims delivery
// workers take, so that across every instance each delivery is attempted by one worker at a time and each
// endpoint receives one attempt at a time. Events are written by outbox.ts.
import { newId } from "../../ids.js";
import type { PgDatabase } from "./pool.js";
// Rows arrive in SQLite's shapes (pool.ts), so records are mapped as SQLite maps them.
import { finishedState, toClaimed, toDelivery, toEndpoint, type ClaimRow as ClaimedRow, type DeliveryRow, type EndpointRow } from "../sqlite/webhooks.js";
import type { Store } from "../types.js";

export type WebhookQueries = Pick<Store,
  | "createWebhookEndpoint" | "listWebhookEndpoints" | "getWebhookEndpoint" | "removeWebhookEndpoint" | "listWebhookDeliveries"
  | "claimWebhookDeliveries" | "finishWebhookDelivery" | "releaseWebhookDelivery" | "countPendingWebhookDeliveries" | "pruneWebhookEvents">;

interface ClaimRow extends ClaimedRow {
  next_attempt_at: string;
  event_seq: number;
}

const ENDPOINT_COLUMNS = "id, owner_id, url, events, secret, created_at";
// $1 now: a delivery is free when due and no live claim holds it (a claim past its time belonged to a worker that died).
const FREE = "d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.claimed_until IS NULL OR d.claimed_until <= $1)";
const HELD = "SELECT 1 FROM webhook_deliveries h WHERE h.endpoint_id = e.id AND h.status = 'pending' AND h.claimed_until > $1";
// First, the endpoints to send to: each locked by one claimer (SKIP LOCKED: instances claiming at once take
// different endpoints, never waiting), with something due and nothing in flight, the longest waiting first.
// NO KEY UPDATE: outbox writes (whose foreign key takes KEY SHARE on the endpoint) go on meanwhile.
const LOCK_ENDPOINTS = `
  SELECT e.id FROM webhook_endpoints e
  WHERE e.id <> ALL($2::text[])
    AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND ${FREE})
    AND NOT EXISTS (${HELD})
  ORDER BY (SELECT MIN(d.next_attempt_at) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND ${FREE}), e.seq
  LIMIT $3
  FOR NO KEY UPDATE OF e SKIP LOCKED`;
// Then, in a statement that sees every claim committed before those locks were granted, the oldest free
// delivery of each locked endpoint that is still idle. The outer WHERE is checked again on the row's latest
// version should an attempt be finished at the same moment.
const CLAIM = `
  UPDATE webhook_deliveries d SET claimed_by = $3, claimed_until = $4
  FROM (
    SELECT DISTINCT ON (d.endpoint_id) d.event_id, d.endpoint_id, e.url, e.secret, ev.payload, ev.seq AS event_seq
    FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN webhook_events ev ON ev.id = d.event_id
    WHERE d.endpoint_id = ANY($2::text[]) AND ${FREE} AND NOT EXISTS (${HELD})
    ORDER BY d.endpoint_id, d.next_attempt_at, ev.seq
  ) pick
  WHERE d.event_id = pick.event_id AND d.endpoint_id = pick.endpoint_id AND ${FREE}
  RETURNING d.event_id, d.endpoint_id, pick.url, pick.secret, pick.payload, d.attempts, d.next_attempt_at, pick.event_seq`;
const FINISH = `
  UPDATE webhook_deliveries SET status = $1, attempts = attempts + 1, last_attempt_at = $2, next_attempt_at = $3, last_error = $4,
    last_status = $5, claimed_by = NULL, claimed_until = NULL
  WHERE event_id = $6 AND endpoint_id = $7 AND claimed_by = $8 AND status = 'pending'`;
// An interrupted attempt keeps `attempts` and `next_attempt_at` as they were: it is made again, as if never begun.
const RELEASE = `
  UPDATE webhook_deliveries SET last_attempt_at = $1, last_error = $2, last_status = NULL, claimed_by = NULL, claimed_until = NULL
  WHERE event_id = $3 AND endpoint_id = $4 AND claimed_by = $5 AND status = 'pending'`;
const DELIVERIES = `
  SELECT d.event_id, d.endpoint_id, ev.owner_id, ev.type, d.status, d.attempts, d.created_at, d.last_attempt_at,
    d.next_attempt_at, d.last_status, d.last_error
  FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
  WHERE ($1::text IS NULL OR ev.owner_id = $1) AND ($2::text IS NULL OR d.endpoint_id = $2)
  ORDER BY ev.seq DESC, d.endpoint_id COLLATE "C" LIMIT $3`;
const PRUNE = `
  DELETE FROM webhook_events ev WHERE ev.created_at < $1
  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id AND d.status = 'pending')`;

/** The webhook queries of one database. */
export function webhookQueries(db: PgDatabase): WebhookQueries {
  return {
    async createWebhookEndpoint({ ownerId, url, events, secret }) {
      const row: EndpointRow = { id: newId("whk"), owner_id: ownerId, url, events: JSON.stringify(events), secret, created_at: new Date().toISOString() };
      await db.run(`INSERT INTO webhook_endpoints (${ENDPOINT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`, [
        row.id, row.owner_id, row.url, row.events, row.secret, row.created_at,
      ]);
      return toEndpoint(row);
    },
    async listWebhookEndpoints(ownerId) {
      const rows = await db.query<EndpointRow>(
        `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE ($1::text IS NULL OR owner_id = $1) ORDER BY seq`,
        [ownerId ?? null],
      );
      return rows.map(toEndpoint);
    },
    async getWebhookEndpoint(id) {
      const [row] = await db.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1`, [id]);
      return row && toEndpoint(row);
    },
    removeWebhookEndpoint: async (id) => (await db.run("DELETE FROM webhook_endpoints WHERE id = $1", [id])) > 0,
    async listWebhookDeliveries(filter = {}) {
      const { ownerId = null, endpointId = null, limit = 100 } = filter;
      return (await db.query<DeliveryRow>(DELIVERIES, [ownerId, endpointId, limit])).map(toDelivery);
    },
    async claimWebhookDeliveries({ worker, now, until, limit, busyEndpoints = [] }) {
      if (limit <= 0) return [];
      const at = now.toISOString();
      const rows = await db.transaction(async (sql) => {
        const endpoints = (await sql.query<{ id: string }>(LOCK_ENDPOINTS, [at, busyEndpoints, limit])).map((row) => row.id);
        if (endpoints.length === 0) return [];
        return sql.query<ClaimRow>(CLAIM, [at, endpoints, worker, until.toISOString()]);
      });
      rows.sort((a, b) => a.next_attempt_at.localeCompare(b.next_attempt_at) || a.event_seq - b.event_seq);
      return rows.map(toClaimed);
    },
    async finishWebhookDelivery({ eventId, endpointId, worker, at, delivered, status, error, nextAttemptAt }) {
      const { state, next } = finishedState(delivered, nextAttemptAt);
      await db.run(FINISH, [state, at.toISOString(), next, delivered ? null : error, status, eventId, endpointId, worker]);
    },
    async releaseWebhookDelivery({ eventId, endpointId, worker, at, error }) {
      await db.run(RELEASE, [at.toISOString(), error, eventId, endpointId, worker]);
    },
    async countPendingWebhookDeliveries() {
      return (await db.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'"))[0]?.n ?? 0;
    },
    pruneWebhookEvents: async (before) => db.run(PRUNE, [before.toISOString()]),
  };
}
