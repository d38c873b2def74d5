import { describe, expect, it } from 'vitest';
import type { Alternate, ParsedUrl } from '../../types.js';
import { pageKey } from '../page-key.js';
import { UrlExpander } from '../url-expander.js';

function entry(loc: string, alternates: Alternate[] = []): ParsedUrl {
  return { loc, lastmod: null, changefreq: null, priority: null, alternates, images: [], videos: [], news: null };
}

function expandAll(entries: ParsedUrl[]): string[] {
  const expander = new UrlExpander();
  return entries.flatMap((one) => expander.expand(one));
}

describe('page URLs deduplicated within a sitemap', () => {
  it('drops later spellings of one URL (scheme and host case, default port, fragment) from the first entry on', () => {
    const urls = expandAll([
      entry('https://example.com/a'),
      entry('HTTPS://Example.COM/a'),
      entry('https://example.com:443/a'),
      entry('https://example.com/a#reviews'),
      entry('https://example.com:0443/a#x'),
      entry('http://example.com:80/b'),
      entry('http://EXAMPLE.com/b'),
      entry('https://example.com'),
      entry('https://example.com/'),
      entry('https://example.com?q=1'),
      entry('https://example.com/?q=1'),
    ]);
    expect(urls).toEqual(['https://example.com/a', 'http://example.com:80/b', 'https://example.com', 'https://example.com?q=1']);
  });

  it('keeps the variants that are other URLs: trailing slash, scheme, port, path and query case', () => {
    const locs = [
      'https://example.com/a',
      'https://example.com/a/',
      'http://example.com/a',
      'https://example.com:8443/a',
      'https://example.com/A',
      'https://example.com/a?x=1',
      'https://example.com/a?X=1',
    ];
    expect(expandAll(locs.map((loc) => entry(loc)))).toEqual(locs);
  });

  it('dedupes locs against alternates met before and after, keeping the first spelling', () => {
    const urls = expandAll([
      entry('https://example.com/en', [{ hreflang: 'de', href: 'https://EXAMPLE.com/de#top' }]),
      entry('https://example.com/de', [{ hreflang: 'en', href: 'https://example.com/en' }]),
      entry('https://example.com/fr'),
    ]);
    expect(urls).toEqual(['https://example.com/en', 'https://EXAMPLE.com/de#top', 'https://example.com/fr']);
  });

  it('keeps every distinct URL of a large sitemap', () => {
    const locs = Array.from({ length: 60_000 }, (_, i) => `https://example.com/item-${i}`);
    expect(expandAll(locs.map((loc) => entry(loc))).length).toBe(60_000);
  });
});

describe('pageKey', () => {
  it('returns a loc with a canonical non-default port as its own key, without a copy', () => {
    for (const loc of ['http://127.0.0.1:8080/a', 'https://example.com:80/x?y', 'http://example.com:443/']) expect(pageKey(loc)).toBe(loc);
  });

  it('matches the WHATWG href without fragment for scheme, host and port spellings', () => {
    const spellings = [
      'HTTP://Example.com:80/x?y#z',
      'https://user:pw@Example.com:443/x',
      'https://[::1]:443/x#frag',
      'https://bücher.example/x',
      'https://example.com:/x',
      'http://127.0.0.1:8080/a',
      'http://example.com:0080/a',
      'https://example.com:08443/a',
      'https://example.com:8443',
      'http://example.com:0/a',
    ];
    for (const loc of spellings) {
      const whatwg = new URL(loc);
      whatwg.hash = '';
      expect(pageKey(loc)).toBe(whatwg.href);
    }
  });
});
