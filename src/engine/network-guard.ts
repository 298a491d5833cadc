// The private-network guard (CONTRACT §5): a feed URL must not reach loopback, private or link-local hosts.
// The check runs inside the connector's DNS lookup, on the very addresses the socket will connect to,
// so a name cannot resolve to a public address at check time and a private one at connect time.
import dns from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/** `code` of the Error a guarded lookup fails with when a host resolves to a blocked address. */
export const BLOCKED_ADDRESS_CODE = "CALSYNC_BLOCKED_ADDRESS";

/** Error of a refused connection; `address` is the offending IP. */
export interface BlockedAddressError extends Error {
  code: typeof BLOCKED_ADDRESS_CODE;
  hostname: string;
  address: string;
}

/** True when `ip` is not a public unicast address (loopback, private, link-local, CGNAT, unique-local, …). */
export function isBlockedAddress(ip: string): boolean {
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() unwraps IPv4-mapped IPv6 (::ffff:127.0.0.1), so it is judged as the IPv4 it reaches.
    address = ipaddr.process(bare);
  } catch {
    return true; // not an IP address we understand: refuse rather than guess
  }
  // ipaddr.js calls the deprecated IPv4-compatible form (::7f00:1, RFC 4291 §2.5.5.1) unicast;
  // no public feed lives there, and some stacks route it to the embedded IPv4.
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return true;
  return address.range() !== "unicast";
}

/** Builds the Error a guarded lookup reports for `hostname` resolving to `address`. */
export function blockedAddressError(hostname: string, address: string): BlockedAddressError {
  const error = new Error(
    `${hostname} resolves to ${address}, a private or local address`,
  ) as BlockedAddressError;
  error.code = BLOCKED_ADDRESS_CODE;
  error.hostname = hostname;
  error.address = address;
  return error;
}

/** Resolves every address of a host, as `dns.lookup(hostname, { all: true })` does. */
export type Resolver = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

/** Options of `guardedLookup` beyond `allowPrivate`; tests use them, the real path takes the defaults. */
export interface GuardedLookupOptions {
  /** Which addresses are refused. @default isBlockedAddress */
  isBlocked?: (ip: string) => boolean;
  /** Name resolution. @default dns.lookup */
  resolve?: Resolver;
}

/**
 * A `net`/`tls` `lookup` that resolves every address of a host and refuses the connection when any
 * of them is blocked (unless `allowPrivate`); answers in the shape asked for (`all` true or false).
 */
export function guardedLookup(allowPrivate: boolean, options: GuardedLookupOptions = {}): LookupFunction {
  const isBlocked = options.isBlocked ?? isBlockedAddress;
  const resolve: Resolver = options.resolve ?? dns.lookup;
  return (hostname, lookupOptions, callback) => {
    const asked: dns.LookupOptions = typeof lookupOptions === "object" && lookupOptions !== null ? lookupOptions : {};
    resolve(hostname, { ...asked, all: true }, (error, addresses) => {
      if (error) {
        callback(error, asked.all ? [] : "", undefined);
        return;
      }
      if (addresses.length === 0) {
        const notFound = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
          code: "ENOTFOUND",
          hostname,
        });
        callback(notFound, asked.all ? [] : "", undefined);
        return;
      }
      // Any blocked address refuses the host: connecting tries them in turn (happy eyeballs).
      const blocked = allowPrivate ? undefined : addresses.find((entry) => isBlocked(entry.address));
      if (blocked) {
        callback(blockedAddressError(hostname, blocked.address), asked.all ? [] : "", undefined);
        return;
      }
      if (asked.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** The IP of a URL hostname that is an IP literal (`[::1]` → `::1`), or null for a DNS name. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  // WHATWG URL has already rewritten 127.1, 0x7f000001 and 2130706433 as 127.0.0.1.
  return isIP(bare) === 0 ? null : bare;
}
