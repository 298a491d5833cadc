// `calsync db copy`: a whole database into an empty one, SQLite → PostgreSQL and back (CONTRACT §10).
import type { Store } from "./types.js";

/**
 * Tables `db copy` moves, parents before children so every foreign key holds as rows arrive.
 * A new table goes here (or in TRANSIENT_TABLES); a test fails until it does.
 */
export const COPY_TABLES: readonly string[] = [
  "owners",
  "api_tokens",
  "properties",
  "calendars",
  "reservations",
  "sync_runs",
  "sync_run_results",
  // The dashboard's sign-in state goes too, each for what a person relies on: an invite link already
  // sent keeps working (and used ones keep saying when), signed-in browsers stay signed in (as API
  // keys keep working), and the failed sign-ins of the last 15 minutes keep the throttle where it was,
  // so a move is no way to reset it. Only hashes of invite tokens and cookies are stored.
  "owner_invites",
  "owner_sessions",
  "sign_in_failures",
  // Webhooks (CONTRACT §11): endpoints with their secrets (receivers keep verifying), the outbox and every
  // delivery with its retry state, so that an event not yet delivered is delivered from the new database
  // with the same webhook-id, and the double bookings already announced, so none is announced twice.
  "webhook_endpoints",
  "webhook_events",
  "webhook_deliveries",
  "webhook_conflicts",
  // The echo fetch log (CONTRACT §8): without it, a channel's re-export of nights it fetched before the
  // move would read as a real sale, a double booking, until it fetched again.
  "outbound_fetches",
  // Idempotency keys (CONTRACT §14): a client retrying a direct stay across the move gets its first answer.
  "idempotency_keys",
  // The mail outbox (CONTRACT §16): a mail not yet sent is sent from the new database with the same Message-ID.
  "mail_outbox",
  // What each channel has seen (CONTRACT §17): a move keeps every link's reads, its streak and the nights reported.
  "channel_links",
  "channel_reads",
  "channel_exposures",
  // Cleaners' unsubscribe links (CONTRACT §18): a link in a mail sent before the move still works once, and
  // one already used stays used.
  "cleaner_unsubscribes",
];

/** Tables that only hold who is syncing (or checking) right now and when next: a copy starts them afresh. */
export const TRANSIENT_TABLES: readonly string[] = ["sync_leases", "sync_schedule", "host_backoffs", "periodic_tasks"];

/** Copies every row of `from` into `to` (which must be empty) in one transaction of `to`; rows written per table. */
export async function copyDatabase(from: Store, to: Store): Promise<Record<string, number>> {
  const unknown = (await from.tableNames()).filter((t) => !COPY_TABLES.includes(t) && !TRANSIENT_TABLES.includes(t));
  // A table this calsync does not know would be silently left behind.
  if (unknown.length > 0) throw new Error(`the source database has tables this calsync does not know: ${unknown.join(", ")}`);
  return to.importRows(COPY_TABLES, from.exportRows(COPY_TABLES));
}
