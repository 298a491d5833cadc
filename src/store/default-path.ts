// Where the database lives when no --db is given: the user data directory of the platform.
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

type Env = Record<string, string | undefined>;

/** The default database file for this user and platform. */
export function defaultDatabasePath(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  const home = env.HOME || homedir();
  if (platform === "win32") {
    return join(env.LOCALAPPDATA || join(home, "AppData", "Local"), "calsync", "calsync.db");
  }
  if (platform === "darwin") return join(home, "Library", "Application Support", "calsync", "calsync.db");
  // The XDG spec says to ignore a relative XDG_DATA_HOME: it would move the database with the working directory.
  const xdg = env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : undefined;
  return join(xdg ?? join(home, ".local", "share"), "calsync", "calsync.db");
}

/** `--db` flag, else `CALSYNC_DB`, else the default file. */
export function resolveDatabasePath(flag?: string, env: Env = process.env): string {
  return flag || env.CALSYNC_DB || defaultDatabasePath(env);
}
