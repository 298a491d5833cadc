// GET /metrics (CONTRACT §12): off unless asked for; Prometheus text that a strict parser reads; counters
// that move with syncs and requests; labels that never carry a token, URL, owner or property name.
import { describe, expect, it } from "vitest";
import type { RunningServer } from "../src/server/index.js";
import { parsePrometheusText, sampleValue } from "./helpers/prometheus-text.js";
import { ics, ownerWith, post, useServerFixtures } from "./helpers/server-fixtures.js";

const { feed, newStore, serve } = useServerFixtures();

async function scrape(server: RunningServer) {
  const res = await fetch(`${server.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const text = await res.text();
  return { text, families: parsePrometheusText(text) };
}

describe("GET /metrics", () => {
  it("answers 404 with the JSON error body unless the server was started with metrics", async () => {
    const server = await serve(await newStore());
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });

  it("serves Prometheus text with calsync's metrics and Node's default process metrics", async () => {
    const server = await serve(await newStore(), { metrics: true });
    const { families } = await scrape(server);
    expect(families.get("calsync_syncs_total")?.type).toBe("counter");
    expect(families.get("calsync_sync_duration_seconds")?.type).toBe("histogram");
    expect(families.get("calsync_feed_fetch_duration_seconds")?.type).toBe("histogram");
    expect(families.get("calsync_calendar_syncs_total")?.type).toBe("counter");
    expect(families.get("calsync_calendar_failures_total")?.type).toBe("counter");
    expect(families.get("calsync_http_requests_total")?.type).toBe("counter");
    expect(families.get("process_cpu_user_seconds_total")?.samples).toHaveLength(1);
    expect(families.get("nodejs_heap_size_total_bytes")?.samples[0]?.value).toBeGreaterThan(0);
  });

  it("counts a sync by outcome, its calendars by source and error code, its fetches and its request", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann Secretname", {
      "Villa Secretname": [
        { source: "airbnb", url: feed({ body: ics("a1", "a2") }) },
        { source: "booking", url: feed({ status: 503, body: "busy" }) },
      ],
    });
    const server = await serve(store, { metrics: true });
    const before = (await scrape(server)).families;
    expect(sampleValue(before, "calsync_syncs_total", { trigger: "api", outcome: "some_failed" })).toBeUndefined();

    expect((await post(server, ann.token)).status).toBe(207);
    const { text, families } = await scrape(server);
    expect(sampleValue(families, "calsync_syncs_total", { trigger: "api", outcome: "some_failed" })).toBe(1);
    expect(sampleValue(families, "calsync_sync_duration_seconds_count", { trigger: "api" })).toBe(1);
    expect(sampleValue(families, "calsync_calendar_syncs_total", { source: "airbnb", status: "success" })).toBe(1);
    expect(sampleValue(families, "calsync_calendar_syncs_total", { source: "booking", status: "failed" })).toBe(1);
    expect(sampleValue(families, "calsync_calendar_failures_total", { source: "booking", code: "http_error" })).toBe(1);
    expect(sampleValue(families, "calsync_feed_fetch_duration_seconds_count", { source: "airbnb", outcome: "ok" })).toBe(1);
    expect(sampleValue(families, "calsync_feed_fetch_duration_seconds_count", { source: "booking", outcome: "error" })).toBe(1);
    const route = "/api/v1/calendars/sync";
    expect(sampleValue(families, "calsync_http_requests_total", { method: "POST", route, status: "207" })).toBe(1);
    expect(sampleValue(families, "calsync_http_requests_total", { method: "GET", route: "/metrics", status: "200" })).toBe(1);

    // Again with the same feeds: a second run, counted apart from the first.
    await post(server, ann.token);
    const after = (await scrape(server)).families;
    expect(sampleValue(after, "calsync_syncs_total", { trigger: "api", outcome: "some_failed" })).toBe(2);
    expect(sampleValue(after, "calsync_calendar_failures_total", { source: "booking", code: "http_error" })).toBe(2);

    for (const secret of [ann.token, "s3cr3t", "Secretname", ann.ownerId, ann.propertyIds["Villa Secretname"]!, "127.0.0.1"]) {
      expect(text).not.toContain(secret);
    }
  });

  it("counts calendars throttled by their host's Retry-After by channel, never naming the host", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", {
      Loft: [{ source: "vrbo", url: feed({ status: 429, headers: { "retry-after": "600" } }) }],
    });
    const server = await serve(store, { metrics: true });
    expect((await post(server, ann.token)).status).toBe(207);
    const first = (await scrape(server)).families;
    expect(sampleValue(first, "calsync_calendars_throttled_total", { source: "vrbo" })).toBeUndefined();
    expect(sampleValue(first, "calsync_calendar_failures_total", { source: "vrbo", code: "http_error" })).toBe(1);

    const again = await post(server, ann.token);
    expect(again.status).toBe(207);
    const { text, families } = await scrape(server);
    expect(sampleValue(families, "calsync_calendars_throttled_total", { source: "vrbo" })).toBe(1);
    expect(sampleValue(families, "calsync_calendar_failures_total", { source: "vrbo", code: "throttled" })).toBe(1);
    expect(text).not.toContain("127.0.0.1");
  });

  it("labels requests with the route pattern, never the path a caller sent", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "airbnb", url: feed({ body: ics("a1") }) }] });
    const feedToken = (await store.propertyFeedToken(ann.propertyIds.Loft!))!;
    const server = await serve(store, { metrics: true });
    expect((await fetch(`${server.url}/ical/${feedToken}.ics`)).status).toBe(200);
    expect((await fetch(`${server.url}/ical/unknownfeedtoken.ics`)).status).toBe(404);
    expect((await fetch(`${server.url}/no/such/path-with-a-secret`)).status).toBe(404);
    expect((await post(server)).status).toBe(401);

    const { text, families } = await scrape(server);
    expect(sampleValue(families, "calsync_http_requests_total", { method: "GET", route: "/ical/:file", status: "200" })).toBe(1);
    expect(sampleValue(families, "calsync_http_requests_total", { method: "GET", route: "/ical/:file", status: "404" })).toBe(1);
    expect(sampleValue(families, "calsync_http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1);
    expect(sampleValue(families, "calsync_http_requests_total", { route: "/api/v1/calendars/sync", status: "401" })).toBe(1);
    expect(text).not.toContain(feedToken);
    expect(text).not.toContain("unknownfeedtoken");
    expect(text).not.toContain("path-with-a-secret");
  });

  it("keeps each server's metrics apart in one process", async () => {
    const store = await newStore();
    const ann = await ownerWith(store, "Ann", { Loft: [{ source: "vrbo", url: feed({ body: ics("v1") }) }] });
    const first = await serve(store, { metrics: true });
    const second = await serve(store, { metrics: true });
    expect((await post(first, ann.token)).status).toBe(200);
    expect(sampleValue((await scrape(first)).families, "calsync_syncs_total", { outcome: "ok" })).toBe(1);
    expect(sampleValue((await scrape(second)).families, "calsync_syncs_total", { outcome: "ok" })).toBeUndefined();
  });
});
