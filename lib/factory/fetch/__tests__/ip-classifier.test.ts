import { BlockList } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAddress } from '../ip-classifier.js';
import { formatIPv4 } from '../ip-parse.js';

describe('classifyAddress: named ranges', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.32.0.1', 'public'], // just past 172.16/12
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.20.30.40', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.1', 'public'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.0.170', 'reserved'],
  ])('IPv4 %s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each([
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001::200e', 'public'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['2001:0:4136:e378::1', 'reserved'], // Teredo
    ['100::1', 'reserved'], // discard-only
    ['::7f00:1', 'reserved'], // deprecated IPv4-compatible
    ['::ffff:127.0.0.1', 'loopback'], // IPv4-mapped, dotted
    ['::ffff:7f00:1', 'loopback'], // IPv4-mapped, hex
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::7f00:1', 'loopback'], // NAT64 of 127.0.0.1
    ['64:ff9b::a00:1', 'private'], // NAT64 of 10.0.0.1
    ['64:ff9b::808:808', 'public'], // NAT64 of 8.8.8.8
    ['64:ff9b:1::1', 'private'], // local-use NAT64
    ['2002:7f00:1::1', 'loopback'], // 6to4 of 127.0.0.1
    ['2002:c0a8:101::1', 'private'], // 6to4 of 192.168.1.1
    ['2002:808:808::1', 'public'], // 6to4 of 8.8.8.8
  ])('IPv6 %s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each([
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['127.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['017700000001', 'loopback'],
    ['0xa9.0xfe.0xa9.0xfe', 'metadata'],
    ['0', 'unspecified'],
  ])('host spelling %s is classified as the URL parser reads it (%s)', (spelling, expected) => {
    expect(classifyAddress(spelling)).toBe(expected);
  });

  it.each(['', 'example.com', 'localhost', 'not an ip', '1.2.3.4/8', '::g'])('%j is invalid, never public', (text) => {
    expect(classifyAddress(text)).toBe('invalid');
  });
});

// An independent oracle: Node's BlockList loaded with the IANA special-purpose registries.
const SPECIAL_V4: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
  ['168.63.129.16', 32],
];
const oracleV4 = new BlockList();
for (const [base, bits] of SPECIAL_V4) oracleV4.addSubnet(base, bits, 'ipv4');

const spellings: Array<(n: number) => string> = [
  (n) => String(n), // decimal
  (n) => `0x${n.toString(16)}`, // hex
  (n) => `0${n.toString(8)}`, // octal
  (n) => [24, 16, 8, 0].map((s) => `0${((n >>> s) & 0xff).toString(8)}`).join('.'), // dotted octal
  (n) => [24, 16, 8, 0].map((s) => `0x${((n >>> s) & 0xff).toString(16)}`).join('.'), // dotted hex
  (n) => `${n >>> 24}.${n & 0xffffff}`, // short a.b
  (n) => `${n >>> 24}.${(n >>> 16) & 0xff}.${n & 0xffff}`, // short a.b.c
  (n) => `[::ffff:${formatIPv4(n)}]`, // IPv4-mapped
  (n) => `[64:ff9b::${((n >>> 16) & 0xffff).toString(16)}:${(n & 0xffff).toString(16)}]`, // NAT64
];

const inRange = (base: number, bits: number) => fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => base + offset);

describe('classifyAddress: properties', () => {
  it('every address in a non-public range, in any spelling, parsed by new URL, is not public', () => {
    const nonPublic = fc.oneof(
      inRange(0x7f000000, 8), // 127/8
      inRange(0x0a000000, 8), // 10/8
      inRange(0xac100000, 12), // 172.16/12
      inRange(0xc0a80000, 16), // 192.168/16
      inRange(0xa9fe0000, 16), // 169.254/16
      inRange(0x64400000, 10), // 100.64/10
      inRange(0x00000000, 8), // 0/8
      inRange(0xe0000000, 4), // multicast
      inRange(0xf0000000, 4), // reserved + broadcast
    );
    fc.assert(
      fc.property(nonPublic, fc.integer({ min: 0, max: spellings.length - 1 }), (address, which) => {
        const host = new URL(`http://${spellings[which]?.(address) ?? ''}/`).hostname;
        expect(classifyAddress(host)).not.toBe('public');
      }),
      { numRuns: 2_000 },
    );
  });

  it('an IPv4 address is public exactly when the IANA special-purpose registry does not list it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (value) => {
        const address = formatIPv4(value);
        expect(classifyAddress(address) === 'public').toBe(!oracleV4.check(address, 'ipv4'));
      }),
      { numRuns: 5_000 },
    );
  });

  it('IPv4-mapped, NAT64 and 6to4 forms get the class of the IPv4 address inside', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (value) => {
        const high = ((value >>> 16) & 0xffff).toString(16);
        const low = (value & 0xffff).toString(16);
        const expected = classifyAddress(formatIPv4(value));
        expect(classifyAddress(`::ffff:${high}:${low}`)).toBe(expected);
        expect(classifyAddress(`64:ff9b::${high}:${low}`)).toBe(expected);
        expect(classifyAddress(`2002:${high}:${low}::1`)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('global unicast IPv6 outside the special blocks is public; everything under fc00::/7 and fe80::/10 is not', () => {
    const group = fc.integer({ min: 0, max: 0xffff }).map((g) => g.toString(16));
    const rest = fc.array(group, { minLength: 7, maxLength: 7 });
    // 2400::/6 .. 3bff: inside 2000::/3, clear of 2001::/23, 2001:db8::/32, 2002::/16 and 3fff::/20.
    const globalFirst = fc.integer({ min: 0x2400, max: 0x3bff }).map((g) => g.toString(16));
    fc.assert(
      fc.property(globalFirst, rest, (first, tail) => {
        expect(classifyAddress([first, ...tail].join(':'))).toBe('public');
      }),
      { numRuns: 1_000 },
    );
    const localFirst = fc.oneof(fc.integer({ min: 0xfc00, max: 0xfdff }), fc.integer({ min: 0xfe80, max: 0xfebf }));
    fc.assert(
      fc.property(localFirst, rest, (first, tail) => {
        expect(classifyAddress([first.toString(16), ...tail].join(':'))).not.toBe('public');
      }),
      { numRuns: 1_000 },
    );
  });
});
