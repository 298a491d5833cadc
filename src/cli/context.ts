// What every command receives: output streams, environment, logger, and the store on demand.
import type { ConsolaInstance } from "consola";
import { createRequire } from "node:module";
import type { Owner, Store } from "../store/types.js";
import { forTerminal } from "./terminal-text.js";

/** A stream the CLI writes to; process.stdout/stderr fit, and so does a test's collector. */
export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/** The outside world of one CLI run. */
export interface CliIO {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Record<string, string | undefined>;
}

/** Exit codes of CONTRACT §6, and §14's 6: the nights asked for are taken. */
export const EXIT = { ok: 0, failure: 1, usage: 2, partial: 3, auth: 4, network: 5, taken: 6 } as const;

/** Wrong flags or arguments: printed with a help hint, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A failure with its own exit code and a message for people (no stack trace). */
export class CliFailure extends Error {
  override name = "CliFailure";
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export interface CliContext {
  io: CliIO;
  /** Logs and progress: always stderr, so stdout carries data only. */
  logger: ConsolaInstance;
  /** Exit code of the run; commands set it when they finish with one other than 0. */
  exitCode: number;
  /** Opens (once) the database chosen by `--db`, else `CALSYNC_DB`, else the user data directory. */
  store(dbFlag?: string): Promise<Store>;
  /** The owner named by `--owner`, or the only owner when the flag is left out. */
  owner(store: Store, ownerFlag?: string): Promise<Owner>;
  /** Closes what the run opened. */
  close(): Promise<void>;
}

/** Builds the context of one run. */
export function createContext(io: CliIO): CliContext {
  let opened: Promise<Store> | undefined;
  let logger: ConsolaInstance | undefined;
  const context: CliContext = {
    io,
    // Made on first use: consola costs a fifth of `calsync --help`, which logs nothing.
    get logger() {
      return (logger ??= createLogger(io.stderr as NodeJS.WriteStream));
    },
    exitCode: 0,
    store(dbFlag) {
      // The database driver loads with the first command that opens one, so `--help` never pays for it.
      opened ??= import("../store/index.js").then(async ({ isPostgresUrl, openStore, resolveDatabasePath }) => {
        const location = resolveDatabasePath(dbFlag, io.env);
        try {
          return await openStore(location);
        } catch (error) {
          // SQLite says only "file is not a database": name the file, which may be the default nobody typed.
          // PostgreSQL's errors already name host and port (and must not repeat the URL's password).
          if (isPostgresUrl(location) || !(error instanceof Error)) throw error;
          throw new CliFailure(`cannot open the SQLite database ${location}: ${error.message}`, EXIT.failure);
        }
      });
      return opened;
    },
    async owner(store, ownerFlag) {
      if (ownerFlag) {
        const owner = (await store.getOwner(ownerFlag)) ?? (await store.listOwners()).find((o) => o.name === ownerFlag);
        if (!owner) throw new CliFailure(`no owner "${ownerFlag}" (see: calsync owner list)`, 1);
        return owner;
      }
      const owners = await store.listOwners();
      if (owners.length === 1) return owners[0]!;
      if (owners.length === 0) throw new CliFailure("no owner yet: create one with `calsync owner add NAME`", 1);
      throw new UsageError(`${owners.length} owners in this database: choose one with --owner ID`);
    },
    async close() {
      const store = opened;
      opened = undefined;
      // A database that failed to open has nothing to close; its error was reported by the command.
      await store?.then(async (s) => await s.close(), () => {});
    },
  };
  return context;
}

// consola loaded synchronously, and only here: the logger is used synchronously wherever a command needs one.
const require = createRequire(import.meta.url);

function createLogger(stderr: NodeJS.WriteStream): ConsolaInstance {
  const { createConsola, LogLevels } = require("consola") as typeof import("consola");
  const logger = createConsola({
    stdout: stderr,
    stderr,
    fancy: Boolean(stderr.isTTY),
    formatOptions: { date: false },
    // consola would drop to warnings when NODE_ENV=test; the CLI's notes are for its user whatever the env.
    level: LogLevels.info,
  });
  // Messages quote feeds, owners and apps: their control characters are replaced before consola adds its own colours.
  const reporters = logger.options.reporters;
  logger.setReporters(
    reporters.map((reporter) => ({
      log: (entry, ctx) => reporter.log({ ...entry, args: entry.args.map((arg) => (typeof arg === "string" ? forTerminal(arg) : arg)) }, ctx),
    })),
  );
  return logger;
}
