// /metrics gauges of channel links (CONTRACT §17): links by status and seconds since each status's oldest read,
// labelled by status only — never a property name, URL or feed token.
import { describe, expect, it } from "vitest";
import { LONG_CHECK_MS } from "../src/server/channel-watch.js";
import { createServerMetrics } from "../src/server/metrics.js";
import type { ChannelLinkSummary } from "../src/resources/channels.js";
import { buildIcs } from "./helpers/ics.js";
import { parsePrometheusText, sampleValue } from "./helpers/prometheus-text.js";
import { ownerWith, useServerFixtures } from "./helpers/server-fixtures.js";

describe("channel link metrics", () => {
  const fixtures = useServerFixtures();

  it("counts links by status and says how long ago each status's oldest read was", async () => {
    const store = await fixtures.newStore();
    const owner = await ownerWith(store, "Ann", {
      "Secret Cove Villa": [
        { source: "booking", url: fixtures.feed({ body: buildIcs([]) }) },
        { source: "vrbo", url: fixtures.feed({ body: buildIcs([]) }) },
      ],
    });
    const token = (await store.propertyFeedToken(owner.propertyIds["Secret Cove Villa"]!))!;
    const server = await fixtures.serve(store, { metrics: true });
    await (await fetch(`${server.url}/ical/${token}.ics?exclude=booking`)).text();
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const families = parsePrometheusText(text);
    expect(sampleValue(families, "calsync_channel_links", { status: "current" })).toBe(1);
    expect(sampleValue(families, "calsync_channel_links", { status: "never" })).toBe(1);
    expect(sampleValue(families, "calsync_channel_links", { status: "stale" })).toBe(0);
    expect(sampleValue(families, "calsync_channel_oldest_read_seconds", { status: "current" })).toBeLessThan(60);
    expect(sampleValue(families, "calsync_channel_oldest_read_seconds", { status: "never" })).toBe(0);
    expect(text).not.toContain("Secret Cove");
    expect(text).not.toContain(token);
    expect(text).not.toContain("exclude=booking");
  });
});

describe("counting the links for the gauges", () => {
  const summary = (current: number): ChannelLinkSummary => ({
    count: { never: 0, stale: 0, behind: 0, current },
    oldestReadAt: { never: null, stale: null, behind: null, current: new Date().toISOString() },
  });
  const currentLinks = async (registry: ReturnType<typeof createServerMetrics>["registry"]) =>
    sampleValue(parsePrometheusText(await registry.metrics()), "calsync_channel_links", { status: "current" });

  it("counts afresh at each scrape while a count is quick", async () => {
    let counts = 0;
    const { registry } = createServerMetrics({ channelLinks: async () => summary(++counts) });
    expect(await currentLinks(registry)).toBe(1);
    // The two gauges of one scrape share one count; the next scrape is another request, a moment later.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await currentLinks(registry)).toBe(2);
  });

  it("serves the scrapes after a long count from it, as the channel check spaces its checks", async () => {
    let counts = 0;
    const { registry } = createServerMetrics({
      channelLinks: async () => {
        await new Promise((resolve) => setTimeout(resolve, LONG_CHECK_MS));
        return summary(++counts);
      },
    });
    expect(await currentLinks(registry)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await currentLinks(registry)).toBe(1);
    expect(counts).toBe(1);
  });
});
