import { describe, expect, it } from 'vitest';
import { compileFilter, FilterOptionsSchema, type FilterOptionsInput } from '../index.js';

const ref = { url: 'https://www.example.com/sitemap.xml', depth: 0, parent: null };

function kept(filter: FilterOptionsInput, candidates: Array<{ url: string; lastmod?: string | null; locale?: string | null }>): string[] {
  const keep = compileFilter(filter);
  if (keep === null) return candidates.map((candidate) => candidate.url);
  return candidates
    .filter((candidate) => keep({ url: candidate.url, lastmod: candidate.lastmod ?? null, locale: candidate.locale ?? null }, ref))
    .map((c) => c.url);
}

const site = (paths: string[]) => paths.map((path) => ({ url: `https://www.example.com${path}` }));

describe('compileFilter', () => {
  it('keeps everything and costs nothing without options', () => {
    expect(compileFilter({})).toBeNull();
  });

  it('matches globs on the path when they start with /, on the whole URL otherwise; ** crosses folders, * does not', () => {
    const urls = site(['/blog/a', '/blog/2024/b', '/docs/x', '/blog.html']);
    expect(kept({ include: ['/blog/*'] }, urls)).toEqual(['https://www.example.com/blog/a']);
    expect(kept({ include: ['/blog/**'] }, urls)).toEqual(['https://www.example.com/blog/a', 'https://www.example.com/blog/2024/b']);
    expect(kept({ include: ['https://*.example.com/docs/**'] }, urls)).toEqual(['https://www.example.com/docs/x']);
  });

  it('reads /RE/flags as a regular expression, and exclude wins over include', () => {
    const urls = site(['/Blog/a', '/blog/draft-b', '/docs/x']);
    expect(kept({ include: ['/blog/i'] }, urls)).toEqual(['https://www.example.com/Blog/a', 'https://www.example.com/blog/draft-b']);
    expect(kept({ include: ['/blog/i'], exclude: ['/draft-/'] }, urls)).toEqual(['https://www.example.com/Blog/a']);
  });

  it('refuses a pattern that is not a valid regular expression', () => {
    expect(FilterOptionsSchema.safeParse({ include: ['/(unclosed/'] }).success).toBe(false);
  });

  it('keeps path prefixes, looking through a leading locale folder', () => {
    const urls = site(['/docs/a', '/en-us/docs/b', '/docsearch', '/blog/c']);
    expect(kept({ pathPrefixes: ['/docs/'] }, urls)).toEqual(['https://www.example.com/docs/a', 'https://www.example.com/en-us/docs/b']);
    expect(kept({ pathPrefixes: ['/blog/*'] }, urls)).toEqual(['https://www.example.com/blog/c']);
  });

  it('keeps locales as groups reports them; a bare language keeps its regions', () => {
    const urls = [
      { url: 'https://x.test/en-us/a', locale: 'en-US' },
      { url: 'https://x.test/en-gb/a', locale: 'en-GB' },
      { url: 'https://x.test/de/a', locale: 'de' },
      { url: 'https://x.test/a', locale: null },
    ];
    expect(kept({ locales: ['en'] }, urls)).toEqual(['https://x.test/en-us/a', 'https://x.test/en-gb/a']);
    expect(kept({ locales: ['EN_gb', 'de'] }, urls)).toEqual(['https://x.test/en-gb/a', 'https://x.test/de/a']);
  });

  it('keeps lastmod on or after --since; entries without lastmod stay unless required', () => {
    const urls = [
      { url: 'https://x.test/old', lastmod: '2023-12-31T23:59:59Z' },
      { url: 'https://x.test/same-day', lastmod: '2024-01-01' },
      { url: 'https://x.test/new', lastmod: '2024-06-01T10:00:00+02:00' },
      { url: 'https://x.test/none', lastmod: null },
      { url: 'https://x.test/garbage', lastmod: 'yesterday' },
    ];
    expect(kept({ since: '2024-01-01' }, urls)).toEqual(['https://x.test/same-day', 'https://x.test/new', 'https://x.test/none', 'https://x.test/garbage']);
    expect(kept({ since: '2024-01-01', requireLastmod: true }, urls)).toEqual(['https://x.test/same-day', 'https://x.test/new']);
  });

  it('scopes to the root host or its registrable domain; all keeps foreign hosts', () => {
    const urls = [{ url: 'https://www.example.co.uk/a' }, { url: 'https://shop.example.co.uk/b' }, { url: 'https://other.co.uk/c' }];
    const scopeRoot = 'https://www.example.co.uk/';
    expect(kept({ scope: 'host', scopeRoot }, urls)).toEqual(['https://www.example.co.uk/a']);
    expect(kept({ scope: 'domain', scopeRoot }, urls)).toEqual(['https://www.example.co.uk/a', 'https://shop.example.co.uk/b']);
    expect(kept({ scope: 'all', scopeRoot }, urls)).toHaveLength(3);
  });
});
