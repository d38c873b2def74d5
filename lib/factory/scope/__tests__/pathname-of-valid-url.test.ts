import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathnameOfValidUrl } from '../locale.js';

// Only URLs the parser accepts are asked about (validated locs): for them the string scan must give its pathname.
const parsedPathname = (url: string): string | null => {
  try {
    return new URL(url).pathname;
  } catch {
    return null;
  }
};

describe('pathnameOfValidUrl', () => {
  it('gives the WHATWG pathname for the spellings the scan reads and the ones it hands to the parser', () => {
    const urls = [
      'https://example.com/catalog/item.html?x=1#y',
      'https://example.com',
      'https://example.com?q',
      'http://user:pw@example.com:8080/a/b/',
      'https://example.com/a/./b/../c',
      'https://example.com/a/%2e%2E/c',
      'https://example.com/.well-known/x',
      'https://example.com/a b/"q"/{x}/`y`/<z>',
      'https://example.com/bücher/',
      'https://example.com\\a\\b',
      'https://example.com/a\\b',
      'HTTPS://example.com/A',
      'https://ex\tample.com/a',
      "https://example.com/a%20b/|^~!$&'()*+,;=:@",
    ];
    for (const url of urls) expect([url, pathnameOfValidUrl(url)]).toEqual([url, parsedPathname(url)]);
  });

  it('matches the parser on generated URLs it accepts (property)', () => {
    const path = fc.stringMatching(/^[/a-zA-Z0-9.%2eE\\ "<>`{}|^~!$&'()*+,;=:@?#\u00e9-]{0,24}$/);
    const url = fc.tuple(fc.constantFrom('http://', 'https://'), fc.constantFrom('example.com', 'a.b:81', 'u@h'), path).map(([s, h, p]) => s + h + p);
    fc.assert(
      fc.property(url, (candidate) => {
        const expected = parsedPathname(candidate);
        if (expected !== null) expect(pathnameOfValidUrl(candidate)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
