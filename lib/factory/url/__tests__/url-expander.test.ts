import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashInto } from '../hash-set.js';
import type { Alternate, ParsedUrl } from '../../../core/types.js';
import { hashPageKeys, pageKey } from '../page-key.js';
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
    // The first spelling of each page, normalised: `http://example.com:80/b` is `http://example.com/b`.
    expect(urls).toEqual(['https://example.com/a', 'http://example.com/b', 'https://example.com/', 'https://example.com/?q=1']);
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

  it('dedupes locs against alternates met before and after, keeping the first spelling normalised', () => {
    const urls = expandAll([
      entry('https://example.com/en', [{ hreflang: 'de', href: 'https://EXAMPLE.com/de#top' }]),
      entry('https://example.com/de', [{ hreflang: 'en', href: 'https://example.com/en' }]),
      entry('https://example.com/fr'),
    ]);
    expect(urls).toEqual(['https://example.com/en', 'https://example.com/de', 'https://example.com/fr']);
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

describe('hashPageKeys', () => {
  it('gives each URL its page key when asked, the usual loc as itself', () => {
    const urls = ['https://shop.example.com/a', 'HTTP://Shop.example.com:80/a#x', 'https://example.com'];
    const keys: string[] = [];
    hashPageKeys(urls, new Uint32Array(2 * urls.length), keys);
    expect(keys).toEqual(urls.map(pageKey));
    expect(keys).toEqual(['https://shop.example.com/a', 'http://shop.example.com/a', 'https://example.com/']);
  });

  // Each URL must get exactly hashInto(pageKey(url)), whether the one-pass path or pageKey hashed it: the set
  // compares hashes, so any difference would be a missed or a false duplicate.
  const viaPageKey = (urls: string[]): Uint32Array => {
    const into = new Uint32Array(2 * urls.length);
    urls.forEach((url, i) => hashInto(pageKey(url), into, i));
    return into;
  };
  const viaBatch = (urls: string[]): Uint32Array => {
    const into = new Uint32Array(2 * urls.length);
    hashPageKeys(urls, into);
    return into;
  };

  it('gives each URL the hash of its page key, on both paths and at every length parity', () => {
    const urls = [
      'https://shop.example.com/catalog/c001/products/item-0000000-blue-widget.html',
      'https://shop.example.com/catalog/c001/products/item-0000000-blue-widget.htm',
      'http://127.0.0.1:8080/a',
      'http://127.0.0.1:8080/ab',
      'https://example.com:443/x',
      'https://example.com:0443/x',
      'https://example.com:/x',
      'https://:/',
      'https://ab:/x',
      'https://a.b:1:2/x',
      'HTTP://Example.com/x',
      'https://Example.com/x',
      'https://example.com/x#frag',
      'https://example.com?q',
      'https://example.com',
      'https://e',
      'https:///x',
      'http://',
      'http',
      'https://user@example.com/x',
      'https://[::1]/x',
      'https://example.com/bücher/\u00e9\ud800\udc00\ud800',
      'ftp://example.com/x',
      'httpx://example.com/x',
    ];
    expect(viaBatch(urls)).toEqual(viaPageKey(urls));
    for (const url of urls) expect(viaBatch([url])).toEqual(viaPageKey([url]));
  });

  it('hashes a batch bigger than the kept scratch, and a small one after it, the same way', () => {
    const big = Array.from({ length: 5000 }, (_, i) => `https://shop.example.com/catalog/item-${i}-blue-widget.html`);
    expect(viaBatch(big)).toEqual(viaPageKey(big));
    expect(viaBatch(big.slice(0, 7))).toEqual(viaPageKey(big.slice(0, 7)));
  });

  it('matches hashInto(pageKey) on generated URLs in batches (property)', () => {
    const host = fc.stringMatching(/^[a-zA-Z0-9.-]{0,12}(:[0-9]{0,6})?$/);
    const rest = fc.stringMatching(/^[/?#]?[a-zA-Z0-9/?#%.:\u00e9-]{0,20}$/);
    const url = fc
      .tuple(fc.constantFrom('http://', 'https://', 'HTTPS://', 'http:/', ''), host, rest)
      .map(([scheme, authority, tail]) => scheme + authority + tail);
    fc.assert(
      fc.property(fc.array(url, { maxLength: 40 }), (urls) => {
        expect(viaBatch(urls)).toEqual(viaPageKey(urls));
      }),
      { numRuns: 500 },
    );
  });
});
