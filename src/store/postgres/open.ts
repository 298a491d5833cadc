// openPostgresStore(): one PostgreSQL database, reached and migrated, behind the Store interface.
import { feedSecretQueries } from "./feed-secrets.js";
import { calendarQueries } from "./calendars.js";
import { copyQueries } from "./copy.js";
import { directStayQueries } from "./direct-stays.js";
import { migrate } from "./migrations.js";
import { outboundFetchQueries } from "./outbound-fetches.js";
import { channelLinkQueries } from "./channel-links.js";
import { ownerQueries } from "./owners.js";
import { createPool } from "./pool.js";
import { propertyQueries } from "./properties.js";
import { rateLimitQueries } from "./rate-limits.js";
import { reservationQueries } from "./reservations.js";
import { sessionQueries } from "./sessions.js";
import { syncLeaseQueries } from "./sync-leases.js";
import { periodicTaskQueries } from "./periodic-tasks.js";
import { hostBackoffQueries } from "./host-backoffs.js";
import { syncPortQueries } from "./sync-port.js";
import { syncRunQueries } from "./sync-runs.js";
import { tokenQueries } from "./tokens.js";
import { webhookQueries } from "./webhooks.js";
import { mailQueries } from "./mail.js";
import type { Store } from "../types.js";

/**
 * Opens the database at `url` (`postgres://` or `postgresql://`), bringing its schema up to date.
 * Rejects with StoreUnavailableError, naming host and port but never the password, when it cannot be reached.
 */
export async function openPostgresStore(url: string): Promise<Store> {
  const db = createPool(url);
  try {
    await migrate(db);
  } catch (error) {
    await db.end();
    throw error;
  }

  return {
    path: db.location,
    ...ownerQueries(db),
    ...tokenQueries(db),
    ...propertyQueries(db),
    ...calendarQueries(db),
    ...reservationQueries(db),
    ...outboundFetchQueries(db),
    ...channelLinkQueries(db),
    ...syncPortQueries(db),
    ...syncRunQueries(db),
    ...sessionQueries(db),
    ...rateLimitQueries(db),
    ...syncLeaseQueries(db),
    ...periodicTaskQueries(db),
    ...hostBackoffQueries(db),
    ...copyQueries(db),
    ...webhookQueries(db),
    ...directStayQueries(db),
    ...mailQueries(db),
    ...feedSecretQueries(db),
    async ping() {
      if (db.ended) return false;
      return (await db.urgent.query<{ ok: number }>("SELECT 1 AS ok"))[0]?.ok === 1;
    },
    close: () => db.end(),
  };
}
