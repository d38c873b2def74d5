import { IPV4_RANGES, IPV6_RANGES, type AddressClass } from './address-ranges.js';
import { parseIPv4, parseIPv6 } from './ip-parse.js';

export type { AddressClass } from './address-ranges.js';

const LOW_32 = 0xffff_ffffn;
// Top 96 bits of the blocks whose last 32 bits are the IPv4 address dialled.
const MAPPED_PREFIX = 0xffffn; // ::ffff:0:0/96, IPv4-mapped
const NAT64_PREFIX = 0x0064_ff9bn << 64n; // 64:ff9b::/96, well-known NAT64
const SIX_TO_FOUR = 0x2002n; // 2002::/16 carries its IPv4 in the next 32 bits

/** Class of an IP address in any spelling the WHATWG URL parser accepts (`0x7f.1`, `[::1]`); non-IPs are `invalid`. */
export function classifyAddress(address: string): AddressClass {
  const quad = parseIPv4(address);
  if (quad !== null) return classifyIPv4(quad);
  const wide = parseIPv6(address);
  if (wide !== null) return classifyIPv6(wide);
  const canonical = canonicalHost(address);
  return canonical === null ? 'invalid' : classifyAddress(canonical);
}

/** Class of an IPv4 address given as an unsigned 32-bit number. */
export function classifyIPv4(value: number): AddressClass {
  for (const range of IPV4_RANGES) {
    const shift = 32 - range.bits;
    // Division keeps the arithmetic unsigned (>>> on 32 would be a no-op).
    if (Math.floor(value / 2 ** shift) === Math.floor(range.base / 2 ** shift)) return range.cls;
  }
  return 'public';
}

/** Class of an IPv6 address given as a 128-bit bigint; embedded IPv4 addresses are judged as IPv4. */
export function classifyIPv6(value: bigint): AddressClass {
  const embedded = embeddedIPv4(value);
  if (embedded !== null) return classifyIPv4(embedded);
  for (const range of IPV6_RANGES) {
    const shift = BigInt(128 - range.bits);
    if (value >> shift === range.base >> shift) return range.cls;
  }
  // Only 2000::/3 is global unicast; the rest (IPv4-compatible ::/96, discard 100::/64, ...) is not routable.
  return value >> 125n === 1n ? 'public' : 'reserved';
}

// The IPv4 address a mapped, NAT64 or 6to4 address leads to: the address actually dialled.
function embeddedIPv4(value: bigint): number | null {
  if (value >> 32n === MAPPED_PREFIX || value >> 32n === NAT64_PREFIX) return Number(value & LOW_32);
  if (value >> 112n === SIX_TO_FOUR) return Number((value >> 80n) & LOW_32);
  return null;
}

// Lets callers pass host spellings (`2130706433`, `127.1`, `[::ffff:7f00:1]`) by normalising them the way URLs do.
function canonicalHost(text: string): string | null {
  if (text === '' || /[/?#@\s]/.test(text)) return null;
  try {
    const host = new URL(`http://${text}/`).hostname;
    return host !== text && (parseIPv4(host) !== null || parseIPv6(host) !== null) ? host : null;
  } catch {
    return null;
  }
}
