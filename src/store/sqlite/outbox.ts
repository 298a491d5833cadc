// The outbox (CONTRACT §11): webhook events written inside the caller's transaction, with one pending
// delivery per endpoint subscribed to their type. An event nobody subscribes to is not kept.
import type Database from "better-sqlite3";
import type { WebhookEvent } from "../../types.js";
import { newId } from "../../ids.js";
import type { WebhookSubscription } from "../types.js";
import { mailWriter } from "./mail.js";

/** Writes events to the outbox; call it inside the transaction of the change they announce. */
export interface OutboxWriter {
  /**
   * Adds `events` of `ownerId` for every endpoint of the owner that subscribes to their type. Given as a
   * function, they are built only when the owner has an endpoint at all.
   */
  add(ownerId: string, events: readonly WebhookEvent[] | (() => readonly WebhookEvent[]), options?: { bookingChanges?: boolean }): void;
  /** Adds `events` for the owner of `calendarId` (nothing when the calendar is gone). */
  addForCalendar(calendarId: string, events: readonly WebhookEvent[]): void;
}

/** Prepares the outbox statements of one database. */
export function outboxWriter(db: Database.Database): OutboxWriter {
  const endpoints = db.prepare<[string], { id: string; events: string }>(
    "SELECT id, events FROM webhook_endpoints WHERE owner_id = ? ORDER BY rowid",
  );
  const calendarOwner = db.prepare<[string], { owner_id: string }>(
    "SELECT p.owner_id FROM calendars c JOIN properties p ON p.id = c.property_id WHERE c.id = ?",
  );
  const insertEvent = db.prepare<[string, string, string, string, string]>(
    "INSERT INTO webhook_events (id, owner_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  const insertDelivery = db.prepare<[string, string, string, string]>(
    `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, next_attempt_at, created_at)
     VALUES (?, ?, 'pending', 0, ?, ?)`,
  );

  const mails = mailWriter(db);

  // The owner's mails (CONTRACT §16) ride on the same events, in the same transaction.
  const add: OutboxWriter["add"] = (ownerId, given, options) => {
    if (Array.isArray(given) && given.length === 0) return;
    let built: readonly WebhookEvent[] | undefined;
    const eventsOf = () => (built ??= typeof given === "function" ? given() : given);
    mails.addForEvents(ownerId, eventsOf, options);
    addWebhooks(ownerId, eventsOf);
  };
  const addWebhooks = (ownerId: string, given: () => readonly WebhookEvent[]) => {
    const subscribed = endpoints.all(ownerId).map((row) => ({ id: row.id, events: JSON.parse(row.events) as WebhookSubscription[] }));
    if (subscribed.length === 0) return;
    const events = given();
    // The commit's clock, not the sync's: delivery is due from the moment the event exists.
    const at = new Date().toISOString();
    for (const event of events) {
      const receivers = subscribed.filter((endpoint) => endpoint.events.includes("*") || endpoint.events.includes(event.type));
      if (receivers.length === 0) continue;
      const id = newId("msg");
      insertEvent.run(id, ownerId, event.type, JSON.stringify(event), at);
      for (const endpoint of receivers) insertDelivery.run(id, endpoint.id, at, at);
    }
  };
  return {
    add,
    addForCalendar(calendarId, events) {
      if (events.length === 0) return;
      const owner = calendarOwner.get(calendarId);
      if (owner) add(owner.owner_id, events);
    },
  };
}
