// The paths the server answers on, named once for the app, the OpenAPI document and the metrics labels.

/** The one operation of API v1. */
export const SYNC_PATH = "/api/v1/calendars/sync";

/** The OpenAPI 3.1 document of API v1 (no authentication). */
export const OPENAPI_PATH = "/api/v1/openapi.json";

/** Prometheus metrics, served only with `--metrics`. */
export const METRICS_PATH = "/metrics";

// API v1 resources (CONTRACT §14), as h3 route patterns (also the metrics' route labels).

/** `GET` the owner's properties. */
export const PROPERTIES_PATH = "/api/v1/properties";
/** `GET` one property. */
export const PROPERTY_PATH = "/api/v1/properties/:id";
/** `GET` a property's reservations, `POST` a direct stay. */
export const PROPERTY_RESERVATIONS_PATH = "/api/v1/properties/:id/reservations";
/** `GET` which nights of a property are free. */
export const AVAILABILITY_PATH = "/api/v1/properties/:id/availability";
/** `GET` what each channel has seen of a property's feed (CONTRACT §17). */
export const CHANNELS_PATH = "/api/v1/properties/:id/channels";
/** `PATCH` or `DELETE` one direct stay. */
export const RESERVATION_PATH = "/api/v1/reservations/:id";

/** A property's turnovers (CONTRACT §18). */
export const PROPERTY_TURNOVERS_PATH = "/api/v1/properties/:id/turnovers";

/** The turnovers of all of the token owner's properties (CONTRACT §18). */
export const TURNOVERS_PATH = "/api/v1/turnovers";

/** A route pattern as the OpenAPI document and messages write it: `/api/v1/properties/:id` → `/api/v1/properties/{id}`. */
export const openApiPath = (route: string): string => route.replace(/:(\w+)/g, "{$1}");
