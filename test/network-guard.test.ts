// The private-network guard: which addresses are refused, and the lookup that checks them at connect time.
import type { LookupAddress } from "node:dns";
import type { Resolver } from "../src/engine/network-guard.js";
import { describe, expect, it } from "vitest";
import { BLOCKED_ADDRESS_CODE, guardedLookup, isBlockedAddress } from "../src/engine/network-guard.js";

describe("isBlockedAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["10.0.0.1", "RFC 1918"],
    ["172.16.0.1", "RFC 1918"],
    ["192.168.1.1", "RFC 1918"],
    ["169.254.169.254", "cloud metadata (link-local)"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["0.0.0.0", "unspecified"],
    ["255.255.255.255", "broadcast"],
    ["224.0.0.1", "multicast"],
    ["::1", "IPv6 loopback"],
    ["::", "IPv6 unspecified"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["fe80::1", "IPv6 link-local"],
    ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
    ["::ffff:10.0.0.1", "IPv4-mapped private"],
    ["::ffff:169.254.169.254", "IPv4-mapped metadata"],
    ["[::1]", "bracketed IPv6 loopback"],
    ["::ffff:0:7f00:1", "IPv4-translated (RFC 6145)"],
    ["64:ff9b::7f00:1", "NAT64 (RFC 6052)"],
    ["2002:7f00:1::1", "6to4"],
    ["2001:0:4136:e378::1", "Teredo"],
    ["::7f00:1", "IPv4-compatible (deprecated)"],
    ["::a00:1", "IPv4-compatible private"],
    ["fec0::1", "site-local (deprecated)"],
    ["ff02::1", "IPv6 multicast"],
    ["2001:db8::1", "IPv6 documentation"],
    ["240.0.0.1", "reserved (class E)"],
    ["192.0.2.1", "IPv4 documentation"],
    ["198.18.0.1", "benchmarking"],
    ["0.1.2.3", "this network (0/8)"],
    ["not-an-ip", "unparseable"],
  ])("blocks %s (%s)", (ip) => {
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each(["8.8.8.8", "1.1.1.1", "2001:4860:4860::8888", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("allows public %s", (ip) => {
    expect(isBlockedAddress(ip)).toBe(false);
  });
});

type Outcome = { error: (Error & { code?: string }) | null; address: string | LookupAddress[]; family?: number };

function lookup(allowPrivate: boolean, host: string, all: boolean, resolver?: Resolver): Promise<Outcome> {
  return new Promise((resolve) => {
    const guarded = guardedLookup(allowPrivate, resolver ? { resolve: resolver } : {});
    guarded(host, { all }, (error, address, family) => resolve({ error, address, family }));
  });
}

/** A DNS that answers `addresses` for every name, as a rebinding or split-horizon server could. */
const answering = (...addresses: string[]): Resolver => (_host, _options, callback) => {
  queueMicrotask(() => callback(null, addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))));
};

describe("guardedLookup", () => {
  it.each(["127.0.0.1", "10.1.2.3", "169.254.169.254", "::1", "::ffff:192.168.0.1"])("refuses a connection to %s", async (ip) => {
    for (const all of [true, false]) {
      const outcome = await lookup(false, ip, all);
      expect(outcome.error?.code).toBe(BLOCKED_ADDRESS_CODE);
      expect(outcome.error?.message).toContain(ip);
    }
  });

  it.each(["127.1", "0x7f000001", "2130706433", "0177.0.0.1"])("refuses the odd spelling %s as the system resolver reads it", async (host) => {
    const outcome = await lookup(false, host, true);
    expect(outcome.error?.code).toBe(BLOCKED_ADDRESS_CODE);
    expect(outcome.error?.message).toContain("127.0.0.1");
  });

  it("refuses a name when any one of its addresses is private", async () => {
    const resolver = answering("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", "10.0.0.7");
    for (const all of [true, false]) {
      const outcome = await lookup(false, "feeds.example.com", all, resolver);
      expect(outcome.error?.code).toBe(BLOCKED_ADDRESS_CODE);
      expect(outcome.error?.message).toBe("feeds.example.com resolves to 10.0.0.7, a private or local address");
    }
  });

  it("refuses a name that resolves to the cloud metadata address", async () => {
    const outcome = await lookup(false, "metadata.example.com", false, answering("169.254.169.254"));
    expect(outcome.error?.code).toBe(BLOCKED_ADDRESS_CODE);
  });

  it("passes a name whose addresses are all public, first one when asked for one", async () => {
    const resolver = answering("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c");
    expect(await lookup(false, "feeds.example.com", false, resolver)).toEqual({ error: null, address: "93.184.215.14", family: 4 });
    expect((await lookup(false, "feeds.example.com", true, resolver)).address).toHaveLength(2);
  });

  it("reports a name with no addresses as not found", async () => {
    const outcome = await lookup(false, "empty.example.com", true, answering());
    expect(outcome.error?.code).toBe("ENOTFOUND");
  });

  it("refuses localhost, whatever it resolves to", async () => {
    const outcome = await lookup(false, "localhost", true);
    expect(outcome.error?.code).toBe(BLOCKED_ADDRESS_CODE);
  });

  it("answers a single address when asked for one", async () => {
    const outcome = await lookup(false, "8.8.8.8", false);
    expect(outcome).toEqual({ error: null, address: "8.8.8.8", family: 4 });
  });

  it("answers every address when asked for all", async () => {
    const outcome = await lookup(false, "2001:4860:4860::8888", true);
    expect(outcome.error).toBeNull();
    expect(outcome.address).toEqual([{ address: "2001:4860:4860::8888", family: 6 }]);
  });

  it("lets private addresses through when the operator allows them", async () => {
    const outcome = await lookup(true, "127.0.0.1", false);
    expect(outcome).toEqual({ error: null, address: "127.0.0.1", family: 4 });
  });

  it("passes DNS failures through unchanged", async () => {
    const outcome = await lookup(false, "no-such-host.invalid", true);
    expect(outcome.error?.code).toMatch(/ENOTFOUND|EAI_AGAIN|EAI_FAIL|ENODATA/);
  });
});
