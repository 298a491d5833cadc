// The private-network guard on real connections: literal hosts in any spelling, names checked at
// connect time, and every redirect hop. All servers are loopback; a second one on 127.0.0.2 plays
// a public host through fetchFeedGuarded, whose policy is the only thing the test swaps.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchFeed, fetchFeedGuarded } from "../src/engine/fetch-feed.js";
import { isBlockedAddress } from "../src/engine/network-guard.js";
import { startFeedServer, type FeedServer } from "./helpers/feed-server.js";

const ICS = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nEND:VCALENDAR\r\n";
let feeds: FeedServer; // 127.0.0.1: the private network
let outside: FeedServer; // 127.0.0.2: stands in for a public host
// The real rules, except that 127.0.0.2 counts as public.
const publicIs127002 = (ip: string) => ip !== "127.0.0.2" && isBlockedAddress(ip);

beforeAll(async () => {
  feeds = await startFeedServer();
  outside = await startFeedServer({ host: "127.0.0.2" });
});
afterAll(async () => {
  await Promise.all([feeds.close(), outside.close()]);
});

function errorOf(result: Awaited<ReturnType<typeof fetchFeed>>) {
  if (result.kind !== "error") throw new Error(`expected an error, got ${result.kind}`);
  return result.error;
}

const reached = (server: FeedServer, path: string) => server.requests.some((r) => r.path === path);

describe("fetchFeed: private-network guard", () => {
  it("refuses the loopback feed server by default, and the server sees no request", async () => {
    const path = "/guarded.ics";
    const error = errorOf(await fetchFeed(feeds.url(path, { body: ICS })));
    expect(error.code).toBe("blocked_address");
    expect(error.message).toContain("127.0.0.1");
    expect(reached(feeds, path)).toBe(false);
  });

  it.each([
    ["localhost", "localhost"],
    ["a short IPv4 form", "127.1"],
    ["a hex IPv4", "0x7f000001"],
    ["a decimal IPv4", "2130706433"],
    ["an octal IPv4", "0177.0.0.1"],
    ["IPv6 loopback", "[::1]"],
    ["IPv4-mapped IPv6", "[::ffff:127.0.0.1]"],
    ["IPv4-mapped IPv6 in hex", "[::ffff:7f00:1]"],
    ["the unspecified address", "0.0.0.0"],
    ["a private address", "10.0.0.1"],
    ["cloud metadata", "169.254.169.254"],
  ])("refuses %s (%s)", async (_name, host) => {
    const port = new URL(feeds.baseUrl).port;
    const path = `/odd-${encodeURIComponent(host)}.ics`;
    const result = await fetchFeed(`http://${host}:${port}${path}`, { timeoutMs: 5_000 });
    expect(errorOf(result).code).toBe("blocked_address");
    expect(reached(feeds, path)).toBe(false);
  });

  it("reaches the loopback feed server when private networks are allowed", async () => {
    expect(await fetchFeed(feeds.url("/allowed.ics", { body: ICS }), { allowPrivateNetworks: true })).toMatchObject({ kind: "ok" });
  });
});

describe("fetchFeed: the guard on redirects", () => {
  it("fetches from the stand-in public host, so the refusals below come from the redirect hop", async () => {
    const url = outside.url("/public.ics", { body: ICS });
    expect(await fetchFeedGuarded(url, {}, publicIs127002)).toMatchObject({ kind: "ok", body: ICS });
  });

  it.each([
    ["an IP literal", (port: string) => `http://127.0.0.1:${port}`],
    ["a name that resolves to it (checked at connect time)", (port: string) => `http://localhost:${port}`],
    ["an odd spelling", (port: string) => `http://0x7f000001:${port}`],
  ])("refuses a redirect from a public host to a private address given as %s", async (name, target) => {
    const path = `/inside-${encodeURIComponent(name)}.ics`;
    feeds.setRoute(path, { body: ICS });
    const url = outside.url(`/to-inside-${encodeURIComponent(name)}`, { redirectTo: `${target(new URL(feeds.baseUrl).port)}${path}` });
    const error = errorOf(await fetchFeedGuarded(url, { timeoutMs: 5_000 }, publicIs127002));
    expect(error.code).toBe("blocked_address");
    expect(reached(feeds, path)).toBe(false);
  });

  it("refuses a private address reached after several public hops", async () => {
    feeds.setRoute("/deep.ics", { body: ICS });
    outside.setRoute("/hop/1", { redirectTo: "/hop/2" });
    outside.setRoute("/hop/2", { status: 307, redirectTo: `${feeds.baseUrl}/deep.ics` });
    const error = errorOf(await fetchFeedGuarded(outside.url("/hop/1"), {}, publicIs127002));
    expect(error.code).toBe("blocked_address");
    expect(reached(outside, "/hop/2")).toBe(true);
    expect(reached(feeds, "/deep.ics")).toBe(false);
  });

  it("follows the same redirect when the operator allows private networks", async () => {
    feeds.setRoute("/inside-allowed.ics", { body: ICS });
    const url = outside.url("/to-inside-allowed", { redirectTo: `${feeds.baseUrl}/inside-allowed.ics` });
    const result = await fetchFeedGuarded(url, { allowPrivateNetworks: true }, publicIs127002);
    expect(result).toMatchObject({ kind: "ok", body: ICS, finalUrl: `${feeds.baseUrl}/inside-allowed.ics` });
  });
});
