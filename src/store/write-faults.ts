// Which driver errors mean "this database cannot write now" (CONTRACT §4's write_failed), in both dialects.
// Anything else (a constraint, a bug, an unreachable server) goes on as it was.
import { WriteFaultError } from "../engine/write-fault.js";

// better-sqlite3's `code` is the extended result code: SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED, …
const SQLITE_REASONS: Array<[prefix: string, reason: string]> = [
  ["SQLITE_FULL", "the database's disk is full"],
  ["SQLITE_IOERR", "the database's disk reported an I/O error"],
  ["SQLITE_READONLY", "the database is read-only"],
];

// SQLSTATEs: class 53 disk_full, 58030 io_error, 25006 read_only_sql_transaction, 42501 insufficient_privilege.
const POSTGRES_REASONS: Record<string, string> = {
  "53100": "the database's disk is full",
  "58030": "the database's disk reported an I/O error",
  "25006": "the database is read-only",
  "42501": "the database role may not write",
};

/** `error` as a WriteFaultError when it is one of the storage faults above, else undefined. */
export function writeFaultOf(error: unknown): WriteFaultError | undefined {
  if (error instanceof WriteFaultError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  const sqlite = SQLITE_REASONS.find(([prefix]) => code === prefix || code.startsWith(`${prefix}_`));
  const reason = sqlite?.[1] ?? POSTGRES_REASONS[code];
  return reason ? new WriteFaultError(reason, error) : undefined;
}

/** Runs `write`, turning a storage fault into WriteFaultError; every other error goes on as it was. */
export async function writing<T>(write: () => T | Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw writeFaultOf(error) ?? error;
  }
}
