// The paths the server answers on, named once for the app, the OpenAPI document and the metrics labels.

/** The one operation of API v1. */
export const SYNC_PATH = "/api/v1/calendars/sync";

/** The OpenAPI 3.1 document of API v1 (no authentication). */
export const OPENAPI_PATH = "/api/v1/openapi.json";

/** Prometheus metrics, served only with `--metrics`. */
export const METRICS_PATH = "/metrics";
