// `GET /metrics`, apart from metrics.ts so that the app can offer the route without loading prom-client:
// `calsync serve` imports that only with --metrics.
import type { H3, H3Event } from "h3";
import type { ServerMetrics } from "./metrics.js";
import { METRICS_PATH } from "./routes.js";

/** Adds `GET /metrics` (Prometheus text format) to `app`. */
export function registerMetricsRoute(app: H3, metrics: ServerMetrics, requestIdOf: (event: H3Event) => string): void {
  app.get(METRICS_PATH, async (event) => {
    const body = await metrics.registry.metrics();
    return new Response(body, {
      status: 200,
      statusText: "OK",
      headers: { "content-type": metrics.registry.contentType, "cache-control": "no-store", "x-request-id": requestIdOf(event) },
    });
  });
}
