// Public surface of the store: open a database, find its default path, and the record types.
export { openStore, isPostgresUrl } from "./open-store.js";
export { defaultDatabasePath, resolveDatabasePath } from "./default-path.js";
export { SCHEMA_VERSION } from "./sqlite/migrations.js";
export type * from "./types.js";
