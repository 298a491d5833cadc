// The pool behind the PostgreSQL store: named statements, transactions, rows in the shapes SQLite gives
// (times as ISO text, JSON as text), and lost connections as StoreUnavailableError naming host and port,
// never the password. The only file of the store that knows node-postgres.
import pg from "pg";
import { StoreUnavailableError } from "../errors.js";
import { createCheckoutGate } from "./checkout-gate.js";

/** Statements of one connection or of the pool. */
export interface Sql {
  /** Runs one statement (prepared once per connection) and returns its rows. */
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** Runs one statement and returns how many rows it changed. */
  run(text: string, params?: unknown[]): Promise<number>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(text: string): Promise<void>;
}

/** One connection held for a while (db copy's cursor); `release()` gives it back. */
export interface Session extends Sql {
  release(): void;
}

/** A statement as node-postgres' `query(config)` takes it. */
export interface QueryConfig {
  name?: string;
  text: string;
  values?: unknown[];
}

/** What a library written for node-postgres calls on a client (rate-limiter-flexible's `storeClient`). */
export interface QueryClient {
  query(config: QueryConfig): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** The pool of one database. */
export interface PgDatabase extends Sql {
  /** The database URL with its password masked. */
  readonly location: string;
  readonly ended: boolean;
  /** Runs `work` in one transaction (`mode` e.g. "ISOLATION LEVEL REPEATABLE READ"), committed when it resolves. */
  transaction<T>(work: (sql: Sql) => Promise<T>, mode?: string): Promise<T>;
  /**
   * Statements that go before every query waiting for a connection: an owner's lease renewal and the health
   * check, which a sync's queued writes (an owner's calendars, a few hundred at once) must not hold up past the
   * lease's end or the check's deadline.
   */
  readonly urgent: Sql;
  /** Holds one connection until released, for work that spans several calls (a cursor). */
  reserve(): Promise<Session>;
  /** This pool for a library that speaks node-postgres, with the pool's errors (StoreUnavailableError when unreachable). */
  readonly client: QueryClient;
  end(): Promise<void>;
}

/** Connections per instance: enough for the engine's 8 concurrent feeds to write while requests read. */
const POOL_SIZE = 10;
/**
 * How long opening a connection may take before the database counts as unreachable; also how long a query
 * waits for a busy pool with no connection coming free before the database is asked whether it answers.
 */
const CONNECT_TIMEOUT_MS = 5_000;

const parseTimestamp = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ);
// Rows arrive as SQLite gives them, so both stores share one mapping to records (../sqlite/rows.ts).
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === pg.types.builtins.TIMESTAMPTZ) return (text: string) => (parseTimestamp(text) as Date).toISOString();
    if (oid === pg.types.builtins.JSON) return (text: string) => text;
    if (oid === pg.types.builtins.INT8) return (text: string) => Number(text);
    return pg.types.getTypeParser(oid, format as "text");
  },
} as pg.CustomTypesConfig;

/** `url` with its password (and any password parameter) replaced by `***`. */
export function maskDatabaseUrl(location: string): string {
  try {
    const url = new URL(location);
    if (url.password) url.password = "***";
    for (const key of [...url.searchParams.keys()]) if (/pass/i.test(key)) url.searchParams.set(key, "***");
    return url.toString();
  } catch {
    return "postgres://***";
  }
}

/** `host:port` of a database URL, for messages. */
export function databaseAddress(location: string): string {
  try {
    const url = new URL(location);
    const host = url.searchParams.get("host") || url.hostname || "localhost";
    return `${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${url.port || "5432"}`;
  } catch {
    return "an invalid URL";
  }
}

/** Opens a pool on `location` (no connection is made until the first query). */
export function createPool(location: string): PgDatabase {
  try {
    new URL(location);
  } catch {
    // The URL itself would hold the password, so the message does not repeat it.
    throw new Error("the PostgreSQL URL is not valid (expected postgres://user:password@host:port/database)");
  }
  const pool = new pg.Pool({
    connectionString: location,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 10_000,
    keepAlive: true,
    application_name: "calsync",
    types,
  });
  // An idle connection the server drops must not crash the process; the next query reports it.
  pool.on("error", () => {});
  const address = databaseAddress(location);
  const password = safePassword(location);
  const fail = (error: unknown): never => {
    throw toStoreError(error, address, password);
  };
  // Every checkout passes the gate, so node-postgres' own queue (timed with the connect limit) stays empty:
  // a query waits there only for a connection being opened, and in the gate for a busy one.
  const gate = createCheckoutGate({
    size: POOL_SIZE,
    stallMs: CONNECT_TIMEOUT_MS,
    stalled: () => answers(location).catch((error: unknown) => {
      const mapped = toStoreError(error, address, password);
      throw mapped instanceof StoreUnavailableError ? mapped : new StoreUnavailableError(`cannot reach PostgreSQL at ${address}: timed out`);
    }),
  });
  const gated = async <T>(work: () => Promise<T>, urgent = false): Promise<T> => {
    await gate.enter(urgent);
    try {
      return await work();
    } finally {
      gate.leave();
    }
  };
  /** A client of the pool, for work that releases it itself and then calls `gate.leave()`. */
  const checkout = async (): Promise<pg.PoolClient> => {
    await gate.enter();
    try {
      return await pool.connect();
    } catch (error) {
      gate.leave();
      return fail(error);
    }
  };
  const names = new Map<string, string>();
  const named = (text: string, values: unknown[]) => {
    let name = names.get(text);
    if (!name) names.set(text, (name = `calsync_${names.size + 1}`));
    return { name, text, values };
  };
  // Statements with parameters are prepared once per connection; without, they go as simple queries
  // (which also lets a script hold several statements).
  const send = (target: pg.Pool | pg.PoolClient, text: string, params: unknown[], urgent: boolean) => {
    const query = () => (params.length > 0 ? target.query(named(text, params.map(withoutNul))) : target.query(text));
    // A statement on the pool takes a connection of its own; one on a held client has it already.
    return (target instanceof pg.Pool ? gated(query, urgent) : query()).catch(fail);
  };
  const sqlOf = (target: pg.Pool | pg.PoolClient, urgent = false): Sql => ({
    query: async <R>(text: string, params: unknown[] = []) => (await send(target, text, params, urgent)).rows as R[],
    run: async (text, params = []) => (await send(target, text, params, urgent)).rowCount ?? 0,
    async exec(text) {
      await send(target, text, [], urgent);
    },
  });

  let ended = false;
  return {
    ...sqlOf(pool),
    urgent: sqlOf(pool, true),
    location: maskDatabaseUrl(location),
    client: {
      query: async (config) => {
        const { rows, rowCount } = await gated(() => pool.query(config)).catch(fail);
        return { rows, rowCount };
      },
    },
    get ended() {
      return ended;
    },
    async transaction(work, mode = "") {
      const client = await checkout();
      // A connection dropped between two statements must not crash the process either.
      const ignore = () => {};
      client.on("error", ignore);
      let broken = false;
      try {
        await client.query(`BEGIN ${mode}`).catch(fail);
        const result = await work(sqlOf(client));
        await client.query("COMMIT").catch(fail);
        return result;
      } catch (error) {
        broken = error instanceof StoreUnavailableError;
        if (!broken) await client.query("ROLLBACK").catch(() => (broken = true));
        throw error;
      } finally {
        client.off("error", ignore);
        // A connection in an unknown state is closed rather than handed to the next query.
        client.release(broken);
        gate.leave();
      }
    },
    async reserve() {
      const client = await checkout();
      const ignore = () => {};
      client.on("error", ignore);
      return {
        ...sqlOf(client),
        release() {
          client.off("error", ignore);
          client.release(true);
          gate.leave();
        },
      };
    },
    async end() {
      if (ended) return;
      ended = true;
      gate.open();
      await pool.end();
    },
  };
}

/** Resolves when a connection of its own opens and answers within the connect limit (the pool's are all busy). */
async function answers(location: string): Promise<void> {
  const client = new pg.Client({
    connectionString: location,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: CONNECT_TIMEOUT_MS,
    application_name: "calsync",
  });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A parameter with U+0000 replaced by U+FFFD: PostgreSQL text cannot hold NUL (SQLite can), so a name typed
 * with one, a sign-in attempt or a SQLite row copied here would fail the whole statement. Replaced, not
 * dropped, so that "ana\0@x" never finds "ana@x". Feeds lose theirs in parseFeed.
 */
function withoutNul(value: unknown): unknown {
  if (typeof value === "string") return value.includes("\0") ? value.replaceAll("\0", "\uFFFD") : value;
  if (Array.isArray(value) && value.some((item) => typeof item === "string" && item.includes("\0"))) return value.map(withoutNul);
  return value;
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection lost",
  EPIPE: "connection lost",
  ECONNABORTED: "connection lost",
  ENOTFOUND: "unknown host",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};
// SQLSTATEs meaning "no usable session": shutdown, starting up, too many connections, and login refusals.
const SESSION_STATES = new Set(["57P01", "57P02", "57P03", "53300", "3D000"]);
const LOST = /Connection terminated|timeout exceeded when trying to connect|not queryable|Connection ended/i;

/** Connection failures become StoreUnavailableError; every other error goes on as it was. */
function toStoreError(error: unknown, address: string, password: string): unknown {
  const { code, message = "" } = error as { code?: unknown; message?: string };
  const scrub = (text: string) => (password ? text.replaceAll(password, "***") : text);
  const network = typeof code === "string" ? NETWORK_REASONS[code] : undefined;
  if (network) return new StoreUnavailableError(`cannot reach PostgreSQL at ${address}: ${network}`);
  if (typeof code === "string" && (code.startsWith("08") || code.startsWith("28") || SESSION_STATES.has(code))) {
    return new StoreUnavailableError(`PostgreSQL at ${address}: ${scrub(message)}`);
  }
  if (LOST.test(message)) {
    const reason = /timeout/i.test(message) ? "timed out" : "connection lost";
    return new StoreUnavailableError(`cannot reach PostgreSQL at ${address}: ${reason}`);
  }
  if (error instanceof Error && password && error.message.includes(password)) error.message = scrub(error.message);
  return error;
}

// The password as written in the URL and decoded; short ones are not scrubbed (they would mangle messages).
function safePassword(location: string): string {
  try {
    const password = decodeURIComponent(new URL(location).password);
    return password.length >= 4 ? password : "";
  } catch {
    return "";
  }
}
