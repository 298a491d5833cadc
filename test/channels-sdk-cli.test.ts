// What each channel has seen (CONTRACT §17) through the SDK and the CLI against a real server: a test client
// playing Booking.com reads the feed; `client.properties.channels(id)` and `calsync channels` (the built CLI,
// remote with --base-url and local with --db) tell the same.
import { describe, expect, it } from "vitest";
import { nightRangesWords } from "../src/channel-words.js";
import { createClient, NotFoundError } from "../src/sdk/index.js";
import { isBuilt, runBin } from "./helpers/cli.js";
import { buildIcs, day } from "./helpers/ics.js";
import { ownerWith, post, useServerFixtures } from "./helpers/server-fixtures.js";

describe("channels through the SDK and the CLI", () => {
  const fixtures = useServerFixtures();

  it("shows Booking.com's read, its status and the nights it may still sell", async () => {
    expect(isBuilt()).toBe(true);
    const dbPath = fixtures.dbPath();
    const { openStore } = await import("../src/store/index.js");
    const store = await openStore(dbPath);
    try {
      let airbnb = buildIcs([]);
      const owner = await ownerWith(store, "Ann", {
        "Sea View Loft": [
          { source: "airbnb", url: fixtures.feed((_req, res) => res.writeHead(200, { "content-type": "text/calendar" }).end(airbnb)) },
          { source: "booking", url: fixtures.feed({ body: buildIcs([]) }) },
          { source: "vrbo", url: fixtures.feed({ body: buildIcs([]) }) },
        ],
      });
      const propertyId = owner.propertyIds["Sea View Loft"]!;
      const server = await fixtures.serve(store);
      const client = createClient({ apiKey: owner.token, baseURL: server.url });

      // No feed yet: the links have no URL, and reading them makes none (CONTRACT §14).
      expect((await client.properties.channels(propertyId)).data.map((c) => c.url)).toEqual([null, null, null]);
      expect((await store.getProperty(propertyId))!.feedToken).toBeNull();
      await store.propertyFeedToken(propertyId);
      const link = (await client.properties.channels(propertyId)).data.find((c) => c.source === "booking")!;
      expect(link.status).toBe("never");
      await (await fetch(link.url!, { headers: { "user-agent": "Booking.com iCal" } })).text();
      airbnb = buildIcs([{ uid: "a2", start: day(20), end: day(23), summary: "Reserved" }]);
      expect((await post(server, owner.token)).status).toBe(200);

      const channels = (await client.properties.channels(propertyId)).data;
      expect(channels.map((c) => [c.source, c.status])).toEqual([["airbnb", "never"], ["booking", "behind"], ["vrbo", "never"]]);
      expect(channels[1]!.exposedNights.map((n) => n.date)).toEqual([day(20), day(21), day(22)]);
      await expect(client.properties.channels("prp_nope")).rejects.toBeInstanceOf(NotFoundError);

      const remote = await runBin(["channels", "--property", propertyId], { CALSYNC_BASE_URL: server.url, CALSYNC_API_KEY: owner.token });
      expect(remote.code, remote.stderr).toBe(0);
      expect(remote.stdout).toMatch(/^CHANNEL\s+LAST READ\s+STATUS\s+USUALLY\s+MAY STILL SELL$/m);
      const nights = nightRangesWords([day(20), day(21), day(22)]);
      expect(remote.stdout).toMatch(new RegExp(`^booking\\s+read \\d+ s ago\\s+behind\\s+-\\s+${nights}$`, "m"));
      expect(remote.stdout).toMatch(/^vrbo\s+never read\s+never\s+-\s+-$/m);

      const json = await runBin(["channels", "--json"], { CALSYNC_BASE_URL: server.url, CALSYNC_API_KEY: owner.token });
      expect(json.code, json.stderr).toBe(0);
      const data = (JSON.parse(json.stdout) as { data: Array<{ propertyId: string; source: string; status: string }> }).data;
      expect(data.map((c) => [c.propertyId, c.source, c.status])).toEqual([
        [propertyId, "airbnb", "never"],
        [propertyId, "booking", "behind"],
        [propertyId, "vrbo", "never"],
      ]);

      const local = await runBin(["channels", "--db", dbPath, "--json"], { CALSYNC_BASE_URL: server.url });
      expect(local.code, local.stderr).toBe(0);
      const localData = (JSON.parse(local.stdout) as { data: Array<{ source: string; status: string; url: string }> }).data;
      expect(localData.map((c) => [c.source, c.status])).toEqual(data.map((c) => [c.source, c.status]));
      expect(localData[1]!.url).toBe(link.url);
    } finally {
      await store.close();
    }
  });

  it("exits 2 with usage for an unknown flag, and serve for a bad --channel-stale-after", async () => {
    const result = await runBin(["channels", "--propery", "x"]);
    expect(result.code).toBe(2);
    const serve = await runBin(["serve", "--port", "0", "--channel-stale-after", "soon"]);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/invalid duration "soon"/);
  });
});
