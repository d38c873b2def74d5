import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { identityKey } from '../url-identity.js';

describe('identityKey', () => {
  it('gives one key to the spellings of one sitemap', () => {
    const variants = [
      'https://Example.COM/sitemap.xml',
      'HTTPS://example.com:443/sitemap.xml',
      'https://example.com/sitemap.xml#top',
      'https://example.com/sitemap.xml/',
      'https://example.com/sitemap.xml?',
      '  https://example.com/sitemap.xml  ',
    ];
    expect(new Set(variants.map(identityKey))).toEqual(new Set(['https://example.com/sitemap.xml']));
  });

  it('keeps what makes another sitemap: scheme, port, query and path case', () => {
    const keys = [
      'https://example.com/sitemap.xml',
      'http://example.com/sitemap.xml',
      'https://example.com:8443/sitemap.xml',
      'https://example.com/sitemap.xml?page=2',
      'https://example.com/Sitemap.xml',
    ].map(identityKey);
    expect(new Set(keys).size).toBe(5);
  });

  it('keeps the bare root slash', () => {
    expect(identityKey('https://example.com')).toBe('https://example.com/');
    expect(identityKey('https://example.com/')).toBe('https://example.com/');
  });

  it('refuses what is not an absolute URL with invalid_url', () => {
    expect(() => identityKey('/sitemap.xml')).toThrow(expect.objectContaining({ kind: 'invalid_url' }));
  });

  it('is idempotent and ignores fragments and trailing slashes (property)', () => {
    const path = fc.array(fc.stringMatching(/^[a-z0-9_-]{1,8}$/), { maxLength: 4 });
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true }), path, fc.boolean(), fc.string(), (base, segments, slash, fragment) => {
        const url = new URL(base);
        url.pathname = `/${segments.join('/')}`;
        const key = identityKey(url.href);
        expect(identityKey(key)).toBe(key);
        const variant = new URL(url.href);
        if (slash && variant.pathname !== '/') variant.pathname += '/';
        variant.hash = fragment;
        expect(identityKey(variant.href)).toBe(key);
        variant.hostname = variant.hostname.toUpperCase();
        expect(identityKey(variant.href)).toBe(key);
      }),
    );
  });
});
