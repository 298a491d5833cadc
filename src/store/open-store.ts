// openStore(): the one door to a database, whichever kind `--db` / `CALSYNC_DB` names.
import { openSqliteStore } from "./sqlite/open.js";
import type { Store } from "./types.js";

/** True when `location` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(location.trim());
}

/** Opens the database at `location`: a SQLite file path (`:memory:` too), or a `postgres://` URL. */
export async function openStore(location: string): Promise<Store> {
  if (isPostgresUrl(location)) throw new Error("PostgreSQL databases are not supported yet");
  return openSqliteStore(location);
}
