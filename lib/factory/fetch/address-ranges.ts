import { parseIPv4, parseIPv6 } from './ip-parse.js';

/** What kind of network an IP address belongs to; only `public` is reachable by default. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'unspecified'
  | 'metadata'
  | 'benchmarking'
  | 'documentation'
  | 'reserved'
  | 'invalid';

/** One special-purpose block: `bits` leading bits of `base` in common, and its class. */
export interface AddressRange<T extends number | bigint> {
  base: T;
  bits: number;
  cls: AddressClass;
}

const v4 = (dotted: string, bits: number, cls: AddressClass): AddressRange<number> => ({
  base: parseIPv4(dotted) ?? 0,
  bits,
  cls,
});

/**
 * IPv4 special-purpose blocks (IANA registry, RFC 6890 and successors), most specific first.
 * Cloud metadata endpoints come before their enclosing ranges so they get their own class,
 * and Azure's wireserver sits in public space, so it would otherwise pass.
 */
export const IPV4_RANGES: readonly AddressRange<number>[] = [
  v4('169.254.169.254', 32, 'metadata'), // AWS, GCP, Azure, OpenStack instance metadata
  v4('169.254.170.2', 32, 'metadata'), // AWS ECS task metadata
  v4('168.63.129.16', 32, 'metadata'), // Azure wireserver
  v4('100.100.100.200', 32, 'metadata'), // Alibaba Cloud metadata
  v4('0.0.0.0', 8, 'unspecified'), // "this network": 0.0.0.0 dials the local host on Linux
  v4('10.0.0.0', 8, 'private'),
  v4('100.64.0.0', 10, 'cgnat'),
  v4('127.0.0.0', 8, 'loopback'),
  v4('169.254.0.0', 16, 'link-local'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.0.0.0', 24, 'reserved'), // IETF protocol assignments
  v4('192.0.2.0', 24, 'documentation'),
  v4('192.88.99.0', 24, 'reserved'), // deprecated 6to4 relay anycast
  v4('192.168.0.0', 16, 'private'),
  v4('198.18.0.0', 15, 'benchmarking'),
  v4('198.51.100.0', 24, 'documentation'),
  v4('203.0.113.0', 24, 'documentation'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('255.255.255.255', 32, 'broadcast'),
  v4('240.0.0.0', 4, 'reserved'), // future use, unroutable
];

const v6 = (cidr: string, cls: AddressClass): AddressRange<bigint> => {
  const [address = '', bits = '128'] = cidr.split('/');
  return { base: parseIPv6(address) ?? 0n, bits: Number(bits), cls };
};

/**
 * IPv6 blocks decided by prefix alone, most specific first. Blocks that embed an IPv4
 * address (mapped, NAT64, 6to4) are handled by the classifier before this table, and
 * anything left outside 2000::/3 (global unicast) is `reserved`.
 */
export const IPV6_RANGES: readonly AddressRange<bigint>[] = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('fd00:ec2::254/128', 'metadata'), // AWS instance metadata over IPv6
  v6('64:ff9b:1::/48', 'private'), // local-use NAT64 (RFC 8215)
  v6('2001:2::/48', 'benchmarking'),
  v6('2001:db8::/32', 'documentation'),
  v6('3fff::/20', 'documentation'), // RFC 9637
  v6('2001::/23', 'reserved'), // IETF protocol assignments, Teredo included: no sitemap lives there
  v6('fc00::/7', 'private'), // unique local
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'private'), // deprecated site-local, still routed inside some networks
  v6('ff00::/8', 'multicast'),
];
