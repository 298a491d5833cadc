// The private-network guard: which addresses are refused, and the lookup that checks them at connect time.
import type { LookupAddress } from "node:dns";
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
    ["not-an-ip", "unparseable"],
  ])("blocks %s (%s)", (ip) => {
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each(["8.8.8.8", "1.1.1.1", "2001:4860:4860::8888", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("allows public %s", (ip) => {
    expect(isBlockedAddress(ip)).toBe(false);
  });
});

type Outcome = { error: (Error & { code?: string }) | null; address: string | LookupAddress[]; family?: number };

function lookup(allowPrivate: boolean, host: string, all: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    guardedLookup(allowPrivate)(host, { all }, (error, address, family) => resolve({ error, address, family }));
  });
}

describe("guardedLookup", () => {
  it.each(["127.0.0.1", "10.1.2.3", "169.254.169.254", "::1", "::ffff:192.168.0.1"])("refuses a connection to %s", async (ip) => {
    for (const all of [true, false]) {
      const outcome = await lookup(false, ip, all);
      expect(outcome.error?.code).toBe(BLOCKED_ADDRESS_CODE);
      expect(outcome.error?.message).toContain(ip);
    }
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
