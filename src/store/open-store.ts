// openStore(): the one door to a database, whichever kind `--db` / `CALSYNC_DB` names.
import { openSqliteStore } from "./sqlite/open.js";
import type { Store } from "./types.js";

/** True when `location` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(location.trim());
}

/** Opens the database at `location`: a SQLite file path (`:memory:` too), or a `postgres://` URL. */
export async function openStore(location: string): Promise<Store> {
  if (isPostgresUrl(location)) {
    // Loaded only here, so that SQLite users never load node-postgres.
    const { openPostgresStore } = await import("./postgres/open.js");
    return openPostgresStore(location.trim());
  }
  return openSqliteStore(location);
}
