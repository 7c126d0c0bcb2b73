import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where a webhook may not point (SSRF): loopback, private, shared (CGNAT), link-local (the cloud
 * metadata services: 169.254.169.254, fd00:ec2::254), unspecified, documentation, benchmarking,
 * multicast and reserved ranges, and IPv6 forms that embed an IPv4 address of them.
 */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24],
  ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8]] as const) BLOCKED.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address an IPv6 one carries (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96), if any. */
function embeddedV4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether a webhook may not be sent to this IP address. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedV4(address);
  if (v4) return BLOCKED.check(v4, 'ipv4');
  return BLOCKED.check(address, 'ipv6');
}

/** Host names that name this machine or a cloud's metadata service whatever DNS says. */
const BLOCKED_NAMES = /(^|\.)(localhost|localdomain|internal|local)\.?$/i;

/** The URL's host as `isIP` reads it (IPv6 literals lose their brackets). */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Why a webhook URL is refused, or null: not http(s), over 2000 characters, credentials in it, or
 * (unless `allowPrivate`) a host that is, or resolves to, an address of the blocked ranges. Names
 * are resolved here (every address must be public) and again at each send (`guardedLookup`).
 */
export async function refusedUrl(url: string, allowPrivate: boolean): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an http(s) URL of at most 2000 characters';
  }
  if (!['http:', 'https:'].includes(parsed.protocol) || url.length > 2000) return 'must be an http(s) URL of at most 2000 characters';
  if (parsed.username || parsed.password) return 'must not carry credentials';
  if (allowPrivate) return null;
  const host = hostOf(parsed);
  if (isIP(host)) return isBlockedAddress(host) ? 'must not point to a private, loopback, link-local or reserved address' : null;
  if (BLOCKED_NAMES.test(host)) return 'must not point to a local or internal host name';
  const addresses = await new Promise<LookupAddress[] | null>((resolve) => dnsLookup(host, { all: true }, (err, found) => resolve(err ? null : found)));
  if (!addresses?.length) return 'must name a host that resolves';
  return addresses.some((a) => isBlockedAddress(a.address)) ? 'must not resolve to a private, loopback, link-local or reserved address' : null;
}

/**
 * The connection's DNS lookup at send time: the addresses the socket connects to are the ones
 * checked (no gap for DNS rebinding between a check and the connect).
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const blocked = allowPrivate ? undefined : addresses.find((a) => isBlockedAddress(a.address));
      if (blocked) {
        const refusal = Object.assign(new Error(`refused: ${hostname} resolves to ${blocked.address}, a private, loopback, link-local or reserved address`), { code: 'EBLOCKEDADDRESS' });
        return callback(refusal, '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** Whether the URL's own host is an address literal that is blocked (a literal is connected to without a lookup). */
export function blockedLiteral(url: string, allowPrivate: boolean): boolean {
  if (allowPrivate) return false;
  const host = hostOf(new URL(url));
  return (isIP(host) !== 0 && isBlockedAddress(host)) || BLOCKED_NAMES.test(host);
}
