// Which better-sqlite3 this Node runs. Version 12 aborts now and then at exit on Node 24 (its Statement
// destructor calls into a Node environment that is already gone: exit 134); 13 fixes that and ships N-API
// prebuilds, but declares Node ≥ 22 and crashes on Node 20. So both are in package.json: `better-sqlite3`
// is 13, an optional dependency (npm leaves it out on Node 20, without a warning, for its engines), and
// `better-sqlite3-node20` is 12 under an npm alias; only the one for the running Node is loaded.
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

const require = createRequire(import.meta.url);

/** The major version of the running Node. */
export const NODE_MAJOR = Number(process.versions.node.split(".")[0]);

/** The package name of the driver for the running Node (what `require` is given). */
export const DRIVER_PACKAGE = NODE_MAJOR >= 22 ? "better-sqlite3" : "better-sqlite3-node20";

/** The driver's entry file, for a worker thread that loads the same driver wherever calsync is installed. */
export const driverEntry = ((): string => {
  try {
    return require.resolve(DRIVER_PACKAGE);
  } catch (error) {
    // node_modules installed on Node 20 and run on a later Node (nvm use, a new base image).
    if (DRIVER_PACKAGE !== "better-sqlite3") throw error;
    throw new Error(
      `calsync's SQLite driver for Node ${NODE_MAJOR} (better-sqlite3 13) is not installed: npm leaves it out when ` +
        "installing on Node 20. Run `npm install` (or `npm ci`) again with this Node.",
      { cause: error },
    );
  }
})();

/** The driver's Database class (both versions have the same API and the same typings). */
export const Database = require(driverEntry) as typeof BetterSqlite3;
/** A connection of either driver version. */
export type Database = BetterSqlite3.Database;

/**
 * Version 12's compiled addon, named directly: its default lookup (the `bindings` package) tries several
 * paths and reads a stack trace to find them, 1–3 ms of every command's start. Version 13 looks up its
 * prebuild with two `existsSync` calls, so it is left to find it. Undefined: let the driver look.
 */
export const nativeBinding = ((): string | undefined => {
  if (DRIVER_PACKAGE !== "better-sqlite3-node20") return undefined;
  try {
    return require.resolve("better-sqlite3-node20/build/Release/better_sqlite3.node");
  } catch {
    return undefined;
  }
})();
