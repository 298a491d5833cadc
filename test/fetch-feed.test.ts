// fetchFeed against a real loopback feed server: bodies, validators, error codes, limits, redirects.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchFeed } from "../src/engine/fetch-feed.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";

const ICS = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n";
let feeds: FeedServer;
const loopback = { allowPrivateNetworks: true } as const;

beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => {
  await feeds.close();
});

describe("fetchFeed", () => {
  it("returns the body, validators and final URL of a feed", async () => {
    const url = feeds.url("/ok.ics", { body: ICS, etag: '"v1"', headers: { "last-modified": "Wed, 01 Jan 2025 00:00:00 GMT" } });
    const result = await fetchFeed(url, loopback);
    expect(result).toEqual({ kind: "ok", body: ICS, etag: '"v1"', lastModified: "Wed, 01 Jan 2025 00:00:00 GMT", finalUrl: url });
  });

  it("reports a 503 as http_error with the status", async () => {
    const result = await fetchFeed(feeds.url("/down.ics", { status: 503, body: "maintenance" }), loopback);
    expect(result).toEqual({ kind: "error", error: { code: "http_error", httpStatus: 503, message: "feed answered HTTP 503" } });
  });
});
