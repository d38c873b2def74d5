import { isIPv4, isIPv6 } from 'node:net';

/** A dotted-quad IPv4 address as an unsigned 32-bit number, or null when it is not one. */
export function parseIPv4(text: string): number | null {
  if (!isIPv4(text)) return null;
  return text.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

/** An IPv6 address (zone id dropped, dotted IPv4 tail allowed) as a 128-bit bigint, or null. */
export function parseIPv6(text: string): bigint | null {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv6(bare)) return null;
  const groups = expandGroups(bare);
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(group), 0n);
}

// Turns `a::b` and a dotted tail into exactly eight 16-bit groups; input is already validated.
function expandGroups(text: string): number[] {
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let body = text;
  if (tail?.[1]) {
    const quad = parseIPv4(tail[1]) ?? 0;
    body = `${text.slice(0, tail.index)}${(quad >>> 16).toString(16)}:${(quad & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = body.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...(rest === undefined ? [] : zeros), ...right].map((group) => parseInt(group, 16));
}

/** Dotted-quad text of an unsigned 32-bit number. */
export function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
}
