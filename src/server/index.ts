// Public surface of `calsync/server`: the h3 app to mount anywhere, the ready server, and API tokens.
export { createApp, SYNC_PATH, type AppOptions } from "./app.js";
export { startServer, type ServeOptions, type RunningServer } from "./serve.js";
export type { AccessLogLine } from "./access-log.js";
export type { SyncRunner } from "./single-flight.js";
export { generateToken, hashToken, checkToken, type GeneratedToken, type TokenCheck } from "./tokens.js";
