// /metrics gauges of channel links (CONTRACT §17): links by status and seconds since each status's oldest read,
// labelled by status only — never a property name, URL or feed token.
import { describe, expect, it } from "vitest";
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
